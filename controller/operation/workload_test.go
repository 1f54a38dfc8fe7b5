package operation

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func job(name string, created time.Time, suspended bool, conds ...batchv1.JobCondition) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}, Spec: batchv1.JobSpec{Suspend: ptr.To(suspended)}}
	j.Status.Conditions = conds
	return j
}

func TestRunOf(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	done := batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(time.Minute))}
	failed := batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}
	notYet := batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionFalse}
	for _, tc := range []struct {
		name                       string
		job                        *batchv1.Job
		executing, done, succeeded bool
		message                    string
	}{
		{"suspended", job("j", t0, true), false, false, false, ""},
		{"running", job("j", t0, false, notYet), true, false, false, ""},
		{"complete", job("j", t0, false, done), false, true, true, ""},
		{"failed", job("j", t0, false, failed), false, true, false, "BackoffLimitExceeded: Job has reached the specified backoff limit"},
	} {
		r := runOf(tc.job)
		if r.executing != tc.executing || r.done != tc.done || r.succeeded != tc.succeeded || r.message != tc.message {
			t.Errorf("%s: %+v", tc.name, r)
		}
	}
	if r := runOf(job("j", t0, false, done)); duration(r.started, r.finished) != "1m0s" {
		t.Errorf("a complete Job's duration: %s", duration(r.started, r.finished))
	}
}

// TestRunsAndTimes: runs are ordered by when they were scheduled, and the
// run times are the later of the CronJob's and the runs'.
func TestRunsAndTimes(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	older := job("op-loader-100", t0, false, batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(time.Minute))})
	newer := job("op-loader-200", t0.Add(-time.Hour), true) // created earlier, scheduled later
	newer.Annotations = map[string]string{batchv1.CronJobScheduledTimestampAnnotation: t0.Add(time.Hour).Format(time.RFC3339)}
	runs := []*batchv1.Job{older, newer}
	newestFirst(runs)
	if runs[0] != newer {
		t.Fatalf("newest first: %s, %s", runs[0].Name, runs[1].Name)
	}
	reported := metav1.NewTime(t0.Add(-24 * time.Hour))
	cj := &batchv1.CronJob{Status: batchv1.CronJobStatus{LastScheduleTime: &reported, LastSuccessfulTime: &reported}}
	sched, ok := runTimes(cj, runs)
	if !sched.Time.Equal(t0.Add(time.Hour)) || !ok.Time.Equal(t0.Add(time.Minute)) {
		t.Fatalf("lastSchedule %v lastSuccessful %v", sched, ok)
	}
}

func TestInfosOfBackups(t *testing.T) {
	local := &datav1alpha1.DataBackup{Spec: datav1alpha1.DataBackupSpec{BackupPath: "local:///backups"}}
	pvc := &datav1alpha1.DataBackup{Spec: datav1alpha1.DataBackupSpec{BackupPath: "pvc://backups/x"}}
	if got := infosOf(local, "node-1"); got[datav1alpha1.BackupLocationNodeName] != "node-1" || got[datav1alpha1.BackupLocationPath] != "local:///backups" {
		t.Errorf("local backup infos %v", got)
	}
	if got := infosOf(pvc, "node-1"); got[datav1alpha1.BackupLocationNodeName] != "NA" {
		t.Errorf("pvc backup infos %v", got)
	}
	if got := infosOf(&datav1alpha1.DataLoad{}, "node-1"); got != nil {
		t.Errorf("a DataLoad records infos %v", got)
	}
}
