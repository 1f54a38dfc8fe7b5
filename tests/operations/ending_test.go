package operations_test

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestTTLDeletesTheFinishedOperation: a DataLoad with
// ttlSecondsAfterFinished is deleted that long after it completes, its
// release with it.
func TestTTLDeletesTheFinishedOperation(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", engineFake)
	dl := dataLoad(ns, "short", "imagenet", func(dl *datav1alpha1.DataLoad) { dl.Spec.TTLSecondsAfterFinished = ptr.To[int32](3) })
	create(t, dl)
	finishJob(t, ns, waitJob(t, ns, "short-loader").Name, true)
	reaches(t, dl, datav1alpha1.PhaseComplete, 10*time.Second)
	finished := time.Now()
	eventually(t, 15*time.Second, "the DataLoad is deleted after its TTL", func() bool { return !read(t, dl) })
	// Condition times are stored to the second: the TTL may end up to a
	// second early.
	if waited := time.Since(finished); waited < 1500*time.Millisecond {
		t.Fatalf("deleted %v after completing, before its 3s TTL", waited)
	}
	if read(t, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "short-loader"}}) {
		t.Fatal("the expired DataLoad's Job is still there")
	}
}

// TestDeletionNeverWedges deletes operations in the states a deletion can
// meet: waiting without a release, failed before it had one, and in a
// namespace being deleted whose Dataset is gone.
func TestDeletionNeverWedges(t *testing.T) {
	ctx := testenv.Context(t)
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", engineFake)
	holder, waiting := dataLoad(ns, "holder", "imagenet"), dataLoad(ns, "waiting", "imagenet")
	create(t, holder)
	reaches(t, holder, datav1alpha1.PhaseExecuting, 10*time.Second)
	create(t, waiting)
	eventually(t, 10*time.Second, "the second waits", func() bool {
		c := condition(t, waiting, operation.ConditionDatasetClaimed)
		return c != nil && c.Reason == operation.ReasonDatasetHeld
	})
	noDataset := dataLoad(ns, "orphan", "missing")
	create(t, noDataset)
	eventually(t, 10*time.Second, "the DataLoad of a missing Dataset waits", func() bool {
		c := condition(t, noDataset, operation.ConditionDatasetReady)
		return c != nil && c.Reason == operation.ReasonDatasetNotFound
	})
	for _, op := range []datav1alpha1.OperationObject{waiting, noDataset} {
		if err := env.Client.Delete(ctx, op); err != nil {
			t.Fatal(err)
		}
		eventually(t, 10*time.Second, op.GetName()+" without a release is deleted", func() bool { return !read(t, op) })
	}
	if got := holders(t, ns, "imagenet"); got != "DataLoad holder" {
		t.Fatalf("deleting a waiting operation changed the holders: %q", got)
	}

	// The namespace goes: its Dataset first, then the executing DataLoad.
	if err := env.Client.Delete(ctx, &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imagenet"}}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, holder); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the executing DataLoad in a terminating namespace is deleted", func() bool { return !read(t, holder) })
}

// TestUnsupportedOperationFailsAtOnce: a DataLoad on a Dataset whose engine
// cannot load fails at once, naming the engine, and releases the claim the
// webhook made at admission; so does one on a runtime type no engine runs.
func TestUnsupportedOperationFailsAtOnce(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "logs", engineNoLoad)
	seed(t, ns, "efc", "efc")
	admissionClaim(t, ns, "logs", "DataLoad", "warm")
	for _, tc := range []struct{ name, dataset, message string }{
		{"warm", "logs", "the noload engine cannot run a DataLoad"},
		{"other", "efc", "no engine runs the efc runtime of dataset " + ns + "/efc"},
	} {
		dl := dataLoad(ns, tc.name, tc.dataset)
		create(t, dl)
		reaches(t, dl, datav1alpha1.PhaseFailed, 10*time.Second)
		if c := condition(t, dl, operation.ConditionFailed); c.Reason != operation.ReasonUnsupported || c.Message != tc.message {
			t.Fatalf("%s: Failed condition = %+v", tc.name, c)
		}
		if read(t, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tc.name + "-loader"}}) {
			t.Fatalf("%s: an unsupported operation has a Job", tc.name)
		}
	}
	eventually(t, 10*time.Second, "the admission claim is released", func() bool { return holders(t, ns, "logs") == "" })
	bk := &datav1alpha1.DataBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kept"}, Spec: datav1alpha1.DataBackupSpec{Dataset: "logs"}}
	create(t, bk)
	waitJob(t, ns, "kept-backup") // the engine runs the other kinds
}

// TestSpecsThatCannotRun: policy OnEvent is not supported yet; a schedule
// the API server refuses fails the operation naming spec.schedule; a
// CronJob whose runs would start without the claim fails it and goes; a
// Job of the release's name that the release did not make fails it and is
// left alone.
func TestSpecsThatCannotRun(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", engineFake)
	seed(t, ns, "ungated", engineUngated)
	foreign := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken-loader"}, Spec: batchv1.JobSpec{
		Suspend: ptr.To(true),
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "mine", Image: "registry.k8s.io/pause:3.10"}}}},
	}}
	create(t, foreign)
	taken := dataLoad(ns, "taken", "imagenet")
	onEvent := dataLoad(ns, "on-event", "imagenet", func(dl *datav1alpha1.DataLoad) { dl.Spec.Policy = datav1alpha1.OnEvent })
	badSchedule := dataLoad(ns, "bad-schedule", "imagenet", func(dl *datav1alpha1.DataLoad) {
		dl.Spec.Policy, dl.Spec.Schedule = datav1alpha1.Cron, "every day at two"
	})
	ungated := dataLoad(ns, "ungated", "ungated", func(dl *datav1alpha1.DataLoad) {
		dl.Spec.Policy, dl.Spec.Schedule = datav1alpha1.Cron, "0 2 * * *"
	})
	for _, tc := range []struct {
		op              *datav1alpha1.DataLoad
		reason, message string // the Failed condition's reason and a part of its message
	}{
		{onEvent, operation.ReasonUnsupported, "spec.policy: OnEvent is not supported yet"},
		{badSchedule, operation.ReasonInvalidSpec, "spec.schedule"},
		{ungated, operation.ReasonRunsNotGated, "CronJob ungated-loader starts its runs unsuspended"},
		{taken, operation.ReasonNameTaken, "a Job named taken-loader exists that release taken-loader did not create"},
	} {
		create(t, tc.op)
		reaches(t, tc.op, datav1alpha1.PhaseFailed, 20*time.Second)
		if c := condition(t, tc.op, operation.ConditionFailed); c.Reason != tc.reason || !strings.Contains(c.Message, tc.message) {
			t.Fatalf("%s: Failed condition = %+v", tc.op.Name, c)
		}
	}
	eventually(t, 10*time.Second, "the ungated CronJob is removed", func() bool {
		return !read(t, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ungated-loader"}})
	})
	if !read(t, foreign) || !ptr.Deref(foreign.Spec.Suspend, false) || holders(t, ns, "imagenet") != "" {
		t.Fatalf("the foreign Job was touched (suspended %v) or the Dataset kept: %q", foreign.Spec.Suspend, holders(t, ns, "imagenet"))
	}
}

// TestDataMigrateMarksTheDataset: the Dataset is DataMigrating while a
// DataMigrate executes, and Bound again once it completes.
func TestDataMigrateMarksTheDataset(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "warehouse", engineFake)
	dm := &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sync"}, Spec: datav1alpha1.DataMigrateSpec{
		From: datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://bucket/warehouse"}},
		To:   datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: "warehouse", Namespace: ns}},
	}}
	create(t, dm)
	reaches(t, dm, datav1alpha1.PhaseExecuting, 20*time.Second)
	if p := datasetPhase(t, ns, "warehouse"); p != datav1alpha1.DataMigratingDatasetPhase {
		t.Fatalf("Dataset phase while migrating = %q", p)
	}
	finishJob(t, ns, "sync-migrate", true)
	reaches(t, dm, datav1alpha1.PhaseComplete, 10*time.Second)
	eventually(t, 10*time.Second, "the Dataset is Bound again", func() bool {
		return datasetPhase(t, ns, "warehouse") == datav1alpha1.BoundDatasetPhase && holders(t, ns, "warehouse") == ""
	})
}
