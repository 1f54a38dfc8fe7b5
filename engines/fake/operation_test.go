package fake_test

import (
	"context"
	"errors"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/fake"
)

func renderOperation(t *testing.T, e fake.Engine, req engines.OperationRequest) map[string]string {
	t.Helper()
	rel, err := e.Operation(req)
	if err != nil {
		t.Fatal(err)
	}
	c, err := helm.LoadChart(rel.Chart)
	if err != nil {
		t.Fatal(err)
	}
	out, err := helm.Render(context.Background(), c, rel.Values, "warm-loader", "n")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOperationRendersOneWorkload: a Once operation is one Job named after
// the release, carrying the affinity the controller derived; a Cron one is
// one CronJob whose runs start suspended.
func TestOperationRendersOneWorkload(t *testing.T) {
	required := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}},
		}}},
	}}}
	once := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Name: "warm", Namespace: "n"}}
	out := renderOperation(t, fake.Engine{}, engines.OperationRequest{Op: once, Affinity: required})
	if len(out) != 1 {
		t.Fatalf("rendered %v, want the Job alone", helm.SortedKeys(out))
	}
	job := &batchv1.Job{}
	if err := yaml.UnmarshalStrict([]byte(out["templates/job.yaml"]), job); err != nil {
		t.Fatal(err)
	}
	got := job.Spec.Template.Spec.Affinity
	if job.Name != "warm-loader" || got == nil || got.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values[0] != "node-1" {
		t.Fatalf("Job %s with affinity %v", job.Name, got)
	}

	cron := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Name: "warm", Namespace: "n"}, Spec: datav1alpha1.DataLoadSpec{Policy: datav1alpha1.Cron, Schedule: "*/5 * * * *"}}
	for _, ungated := range []bool{false, true} {
		out = renderOperation(t, fake.Engine{UngatedCron: ungated}, engines.OperationRequest{Op: cron})
		cj := &batchv1.CronJob{}
		if err := yaml.UnmarshalStrict([]byte(out["templates/cronjob.yaml"]), cj); err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || cj.Name != "warm-loader" || cj.Spec.Schedule != "*/5 * * * *" || cj.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent {
			t.Fatalf("rendered %v: CronJob %s on %q, concurrency %s", helm.SortedKeys(out), cj.Name, cj.Spec.Schedule, cj.Spec.ConcurrencyPolicy)
		}
		if suspended := cj.Spec.JobTemplate.Spec.Suspend != nil && *cj.Spec.JobTemplate.Spec.Suspend; suspended == ungated {
			t.Fatalf("UngatedCron=%v: runs start suspended = %v", ungated, suspended)
		}
	}
}

func TestOperationRefusesUnsupportedKinds(t *testing.T) {
	e := fake.Engine{Name: "noload", Unsupported: []datav1alpha1.OperationKind{datav1alpha1.DataLoadKind}}
	_, err := e.Operation(engines.OperationRequest{Op: &datav1alpha1.DataLoad{}})
	var engErr *engines.Error
	if !errors.As(err, &engErr) || engErr.Reason != engines.ReasonUnsupported || err.Error() != "the noload engine cannot run a DataLoad" {
		t.Fatalf("err = %v", err)
	}
	if _, err := e.Operation(engines.OperationRequest{Op: &datav1alpha1.DataBackup{}}); err != nil {
		t.Fatalf("a DataBackup: %v", err)
	}
}
