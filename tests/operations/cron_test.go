package operations_test

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
)

// TestCronHoldsTheClaimOnlyWhileARunExecutes runs a Cron DataLoad three
// times. Idle, it holds no claim (not even one made at admission). Its
// CronJob starts each run suspended; the controller claims the Dataset
// and resumes the run, and releases the Dataset when the run finishes, so
// that a Once DataLoad runs between the two runs. The second run, scheduled
// while that one holds the Dataset, waits suspended and Pending naming it,
// then runs.
func TestCronHoldsTheClaimOnlyWhileARunExecutes(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", engineFake)
	nightly := dataLoad(ns, "nightly", "imagenet", func(dl *datav1alpha1.DataLoad) {
		dl.Spec.Policy, dl.Spec.Schedule = datav1alpha1.Cron, "0 2 * * *"
	})
	admissionClaim(t, ns, "imagenet", "DataLoad", "nightly")
	create(t, nightly)
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly-loader"}}
	eventually(t, 20*time.Second, "the CronJob is installed", func() bool { return read(t, cj) })
	eventually(t, 10*time.Second, "idle before the first run, holding nothing", func() bool {
		c := condition(t, nightly, operation.ConditionDatasetClaimed)
		return status(t, nightly).Phase == datav1alpha1.PhasePending && c != nil && c.Reason == operation.ReasonIdle
	})
	if got := holders(t, ns, "imagenet"); got != "" {
		t.Fatalf("an idle Cron operation holds the Dataset (its admission claim was not released): %q", got)
	}

	// The first run: claimed, resumed, executed, released.
	day1 := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	run1 := cronRun(t, cj, day1)
	eventually(t, 10*time.Second, "the first run is resumed once the Dataset is claimed", func() bool { return !suspended(t, run1) })
	reaches(t, nightly, datav1alpha1.PhaseExecuting, 10*time.Second)
	if got := holders(t, ns, "imagenet"); got != "DataLoad nightly" {
		t.Fatalf("holders during the first run = %q", got)
	}
	finishJob(t, ns, run1.Name, true)
	reaches(t, nightly, datav1alpha1.PhaseComplete, 10*time.Second)
	eventually(t, 10*time.Second, "the Dataset is released after the run", func() bool { return holders(t, ns, "imagenet") == "" })
	st := status(t, nightly)
	if st.LastScheduleTime == nil || !st.LastScheduleTime.Time.Equal(day1) || st.LastSuccessfulTime == nil {
		t.Fatalf("lastScheduleTime %v lastSuccessfulTime %v", st.LastScheduleTime, st.LastSuccessfulTime)
	}
	succeeded := *st.LastSuccessfulTime

	// Between runs a Once DataLoad takes the Dataset; the second run waits for it.
	adhoc := dataLoad(ns, "adhoc", "imagenet")
	create(t, adhoc)
	reaches(t, adhoc, datav1alpha1.PhaseExecuting, 10*time.Second)
	day2 := day1.Add(24 * time.Hour)
	run2 := cronRun(t, cj, day2)
	eventually(t, 10*time.Second, "the second run waits Pending, naming the holder", func() bool {
		c := condition(t, nightly, operation.ConditionDatasetClaimed)
		return status(t, nightly).Phase == datav1alpha1.PhasePending && c != nil && c.Reason == operation.ReasonDatasetHeld
	})
	if !suspended(t, run2) {
		t.Fatal("the second run was resumed while another operation held the Dataset")
	}
	if c := condition(t, nightly, operation.ConditionComplete); c != nil {
		t.Fatalf("the first run's Complete still describes the waiting operation: %+v", c)
	}
	finishJob(t, ns, "adhoc-loader", true)
	eventually(t, 20*time.Second, "the second run is resumed once the Dataset is free", func() bool { return !suspended(t, run2) })
	reaches(t, nightly, datav1alpha1.PhaseExecuting, 10*time.Second)
	finishJob(t, ns, run2.Name, false)
	reaches(t, nightly, datav1alpha1.PhaseFailed, 10*time.Second)
	eventually(t, 10*time.Second, "released after the second run too", func() bool { return holders(t, ns, "imagenet") == "" })
	st = status(t, nightly)
	if !st.LastScheduleTime.Time.Equal(day2) || !st.LastSuccessfulTime.Equal(&succeeded) {
		t.Fatalf("after the failed second run: lastScheduleTime %v lastSuccessfulTime %v", st.LastScheduleTime, st.LastSuccessfulTime)
	}

	// A failed run is not the end of a Cron operation: the third runs.
	run3 := cronRun(t, cj, day2.Add(24*time.Hour))
	eventually(t, 10*time.Second, "the third run is resumed", func() bool { return !suspended(t, run3) })
	reaches(t, nightly, datav1alpha1.PhaseExecuting, 10*time.Second)
}
