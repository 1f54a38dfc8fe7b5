package operation

import (
	"testing"
	"time"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestEnded: a write that takes the operation to Complete or Failed from
// another phase is an end, lasting its Job's run (or, failed before a
// run, since its creation); a write that stays in a phase, or reaches
// another, is not.
func TestEnded(t *testing.T) {
	created := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	now := created.Add(time.Hour)
	job := &run{done: true, succeeded: true, started: created.Add(time.Minute), finished: created.Add(6 * time.Minute)}
	for _, tc := range []struct {
		name       string
		prev, next datav1alpha1.Phase
		obs        observations
		wantPhase  datav1alpha1.Phase // "" when no end is reported
		wantTook   time.Duration
	}{
		{"job completed", datav1alpha1.PhaseExecuting, datav1alpha1.PhaseComplete, observations{created: created, now: now, run: job}, datav1alpha1.PhaseComplete, 5 * time.Minute},
		{"job failed", datav1alpha1.PhaseExecuting, datav1alpha1.PhaseFailed, observations{created: created, now: now, run: &run{done: true, started: job.started, finished: job.finished}}, datav1alpha1.PhaseFailed, 5 * time.Minute},
		{"refused before a run", datav1alpha1.PhasePending, datav1alpha1.PhaseFailed, observations{created: created, now: now, failure: &verdict{}}, datav1alpha1.PhaseFailed, time.Hour},
		{"cron run completed again", datav1alpha1.PhasePending, datav1alpha1.PhaseComplete, observations{created: created, now: now, run: job}, datav1alpha1.PhaseComplete, 5 * time.Minute},
		{"still complete", datav1alpha1.PhaseComplete, datav1alpha1.PhaseComplete, observations{created: created, now: now, run: job}, "", 0},
		{"started", datav1alpha1.PhasePending, datav1alpha1.PhaseExecuting, observations{created: created, now: now}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			phase, took, ok := ended(&datav1alpha1.OperationStatus{Phase: tc.prev}, &datav1alpha1.OperationStatus{Phase: tc.next}, tc.obs)
			if ok != (tc.wantPhase != "") || phase != tc.wantPhase || took != tc.wantTook {
				t.Errorf("ended = %q, %v, %v; want %q, %v", phase, took, ok, tc.wantPhase, tc.wantTook)
			}
		})
	}
}
