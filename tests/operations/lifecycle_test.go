package operations_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
)

// TestDataLoadRunsAsAJob follows a DataLoad admitted without a claim (no
// webhook runs here) through its phases: the controller claims the
// Dataset, installs the release (one Job named after it) and reports
// Executing; when the Job completes the operation is Complete, records
// where its pod ran and how long it took, releases the Dataset, and every
// transition is an Event.
func TestDataLoadRunsAsAJob(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", engineFake)
	node(t, "node-"+ns, map[string]string{"topology.kubernetes.io/zone": "zone-a", "topology.kubernetes.io/region": "region-1"})
	dl := dataLoad(ns, "warm", "imagenet")
	create(t, dl)

	job := waitJob(t, ns, "warm-loader")
	reaches(t, dl, datav1alpha1.PhaseExecuting, 10*time.Second)
	if got := holders(t, ns, "imagenet"); got != "DataLoad warm" {
		t.Fatalf("holders while executing = %q", got)
	}
	for typ, reason := range map[string]string{operation.ConditionDatasetClaimed: operation.ReasonClaimed, operation.ConditionDatasetReady: operation.ReasonDatasetBound,
		operation.ConditionReleaseInstalled: operation.ReasonInstalled} {
		if c := condition(t, dl, typ); c == nil || c.Status != metav1.ConditionTrue || c.Reason != reason {
			t.Fatalf("condition %s = %+v, want True %s", typ, c, reason)
		}
	}
	if d := status(t, dl).Duration; d != "Unfinished" {
		t.Fatalf("duration while executing = %q", d)
	}

	ranOn(t, job, "node-"+ns)
	finishJob(t, ns, "warm-loader", true)
	reaches(t, dl, datav1alpha1.PhaseComplete, 10*time.Second)
	st := status(t, dl)
	if c := condition(t, dl, operation.ConditionComplete); c == nil || c.Status != metav1.ConditionTrue || c.Reason != operation.ReasonJobComplete {
		t.Fatalf("Complete condition = %+v", c)
	}
	if st.Duration != "42s" {
		t.Fatalf("duration = %q, want the Job's 42s", st.Duration)
	}
	want := []corev1.NodeSelectorRequirement{
		{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-" + ns}},
		{Key: "topology.kubernetes.io/region", Operator: corev1.NodeSelectorOpIn, Values: []string{"region-1"}},
		{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-a"}},
	}
	if st.NodeAffinity == nil || !equalExprs(st.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions, want) {
		t.Fatalf("nodeAffinity = %+v", st.NodeAffinity)
	}
	eventually(t, 10*time.Second, "the Dataset is released", func() bool { return holders(t, ns, "imagenet") == "" })
	if c := condition(t, dl, operation.ConditionDatasetClaimed); c.Status != metav1.ConditionFalse || c.Reason != operation.ReasonReleased {
		t.Fatalf("DatasetClaimed after completing = %+v", c)
	}
	eventually(t, 10*time.Second, "an Event per transition", func() bool {
		ev := events(t, dl)
		return strings.Contains(ev, "Normal Executing: the operation's Job runs") && strings.Contains(ev, "Normal JobComplete: Job warm-loader completed")
	})
}

func equalExprs(a, b []corev1.NodeSelectorRequirement) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Operator != b[i].Operator || strings.Join(a[i].Values, ",") != strings.Join(b[i].Values, ",") {
			return false
		}
	}
	return true
}

// TestDataBackupRecordsItsLocation: a DataBackup to local:// that completes
// records its path and the node holding it (status.infos), which the
// printer columns show. The platform's guards admit the directory for the
// namespace (validating.guards localPaths): without that, the controller
// refuses the backup, as TestTheGuardsRefuseAnOperationAtReconcile shows.
func TestDataBackupRecordsItsLocation(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "logs", engineFake)
	node(t, "backup-node-"+ns, nil)
	allowLocal(t, ns, "/var/backups")
	bk := &datav1alpha1.DataBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly"},
		Spec: datav1alpha1.DataBackupSpec{Dataset: "logs", BackupPath: "local:///var/backups"}}
	create(t, bk)
	job := waitJob(t, ns, "nightly-backup")
	ranOn(t, job, "backup-node-"+ns)
	finishJob(t, ns, job.Name, true)
	reaches(t, bk, datav1alpha1.PhaseComplete, 10*time.Second)
	if infos := status(t, bk).Infos; infos[datav1alpha1.BackupLocationPath] != "local:///var/backups" || infos[datav1alpha1.BackupLocationNodeName] != "backup-node-"+ns {
		t.Fatalf("infos = %v", infos)
	}
}
