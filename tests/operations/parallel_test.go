package operations_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// parallelMigrate is a DataMigrate of the Dataset with 3 tasks: its pod
// and 2 workers.
func parallelMigrate(ns, name, dataset string, policy datav1alpha1.Policy, schedule string) *datav1alpha1.DataMigrate {
	return &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: datav1alpha1.DataMigrateSpec{
		From:        datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://bucket/warehouse"}},
		To:          datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: dataset, Namespace: ns}},
		Parallelism: 3, ParallelOptions: map[string]string{"sshSecretName": "migrate-keys"},
		Policy: policy, Schedule: schedule,
	}}
}

// workersAt waits until the operation's workers StatefulSet has replicas.
func workersAt(t *testing.T, sts *appsv1.StatefulSet, replicas int32, what string) {
	t.Helper()
	eventually(t, 20*time.Second, what, func() bool { return read(t, sts) && ptr.Deref(sts.Spec.Replicas, -1) == replicas })
}

// TestParallelWorkersRunOnlyWithARun: a parallel DataMigrate's workers (a
// StatefulSet behind a headless Service, from its release) are up while a
// run executes and scaled to zero when it ends; a Cron operation's wait at
// zero until the controller resumes a run; deleting the operation removes
// them with its release.
func TestParallelWorkersRunOnlyWithARun(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "warehouse", engineFake)

	once := parallelMigrate(ns, "sync", "warehouse", datav1alpha1.Once, "")
	create(t, once)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sync-migrate-workers"}}
	workersAt(t, sts, 2, "the Once operation's two workers are up while it executes")
	if svc := (&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sync-migrate-workers"}}); !read(t, svc) || svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Fatalf("no headless Service for the workers: %+v", svc.Spec)
	}
	reaches(t, once, datav1alpha1.PhaseExecuting, 10*time.Second)
	finishJob(t, ns, "sync-migrate", true)
	reaches(t, once, datav1alpha1.PhaseComplete, 10*time.Second)
	workersAt(t, sts, 0, "the workers are scaled to zero once the run completed")

	nightly := parallelMigrate(ns, "nightly", "warehouse", datav1alpha1.Cron, "0 2 * * *")
	create(t, nightly)
	cronSTS := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly-migrate-workers"}}
	workersAt(t, cronSTS, 0, "a Cron operation's workers wait at zero")
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly-migrate"}}
	eventually(t, 20*time.Second, "the CronJob is installed", func() bool { return read(t, cj) })
	run := cronRun(t, cj, time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC))
	eventually(t, 10*time.Second, "the run is resumed once the Dataset is claimed", func() bool { return !suspended(t, run) })
	workersAt(t, cronSTS, 2, "the workers are scaled up for the run")
	finishJob(t, ns, run.Name, false)
	reaches(t, nightly, datav1alpha1.PhaseFailed, 10*time.Second)
	workersAt(t, cronSTS, 0, "the workers are scaled to zero after the run, failed too")

	if err := env.Client.Delete(testenv.Context(t), nightly); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "deleting the operation removes its workers", func() bool { return !read(t, cronSTS) })
}
