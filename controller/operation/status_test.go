package operation

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestOperationStatus computes the status from observations alone: the
// phase follows the failure, the Job or the run, Complete and Failed are
// exclusive and cleared by a new Cron run, conditions not observed keep
// what they said, and the duration runs from the Job's start to its end.
func TestOperationStatus(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	start, end := now.Add(-90*time.Second), now.Add(-10*time.Second)
	complete := &datav1alpha1.OperationStatus{Phase: datav1alpha1.PhaseComplete, Duration: "1m0s",
		Conditions: []metav1.Condition{{Type: ConditionComplete, Status: metav1.ConditionTrue, Reason: ReasonJobComplete}}}
	claimed := &datav1alpha1.OperationStatus{Phase: datav1alpha1.PhasePending, Duration: unfinished,
		Conditions: []metav1.Condition{{Type: ConditionDatasetClaimed, Status: metav1.ConditionTrue, Reason: ReasonClaimed}}}
	for _, tc := range []struct {
		name string
		prev *datav1alpha1.OperationStatus // the status as stored
		obs  observations                  // what the reconcile saw (now and created are filled in)
		// phase, the conditions present (type: reason) and the duration
		// afterwards.
		phase    datav1alpha1.Phase
		conds    map[string]string
		duration string
	}{
		{"waiting for runAfter", &datav1alpha1.OperationStatus{}, observations{runAfter: isTrue(ReasonRunAfterPending, "waiting")},
			datav1alpha1.PhasePending, map[string]string{ConditionWaitingForRunAfter: ReasonRunAfterPending}, unfinished},
		{"held by another", &datav1alpha1.OperationStatus{}, observations{runAfter: isFalse(ReasonRunAfterComplete, ""), dataset: isTrue(ReasonDatasetBound, ""),
			claim: isFalse(ReasonDatasetHeld, "held by DataLoad a")},
			datav1alpha1.PhasePending, map[string]string{ConditionWaitingForRunAfter: ReasonRunAfterComplete, ConditionDatasetReady: ReasonDatasetBound, ConditionDatasetClaimed: ReasonDatasetHeld}, unfinished},
		{"Job running keeps the claim condition", claimed, observations{release: isTrue(ReasonInstalled, ""), run: &run{name: "j", executing: true}},
			datav1alpha1.PhaseExecuting, map[string]string{ConditionDatasetClaimed: ReasonClaimed, ConditionReleaseInstalled: ReasonInstalled}, unfinished},
		{"Job suspended is not executing", claimed, observations{run: &run{name: "j"}},
			datav1alpha1.PhasePending, map[string]string{ConditionDatasetClaimed: ReasonClaimed}, unfinished},
		{"Job complete", claimed, observations{run: &run{name: "j", done: true, succeeded: true, started: start, finished: end}, claim: isFalse(ReasonReleased, "")},
			datav1alpha1.PhaseComplete, map[string]string{ConditionDatasetClaimed: ReasonReleased, ConditionComplete: ReasonJobComplete}, "1m20s"},
		{"Job failed", claimed, observations{run: &run{name: "j", done: true, message: "BackoffLimitExceeded", started: start, finished: end}},
			datav1alpha1.PhaseFailed, map[string]string{ConditionDatasetClaimed: ReasonClaimed, ConditionFailed: ReasonJobFailed}, "1m20s"},
		{"unsupported", &datav1alpha1.OperationStatus{}, observations{failure: isTrue(ReasonUnsupported, "the thin engine cannot run a DataBackup")},
			datav1alpha1.PhaseFailed, map[string]string{ConditionFailed: ReasonUnsupported}, "2m0s"},
		{"a new Cron run clears the last outcome", complete, observations{newRun: true, claim: isFalse(ReasonNewRun, "")},
			datav1alpha1.PhasePending, map[string]string{ConditionDatasetClaimed: ReasonNewRun}, unfinished},
		{"a Cron run that failed after one that completed", complete, observations{run: &run{name: "j2", done: true, started: start, finished: end}},
			datav1alpha1.PhaseFailed, map[string]string{ConditionFailed: ReasonJobFailed}, "1m20s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.obs.now, tc.obs.created, tc.obs.generation = now, now.Add(-2*time.Minute), 3
			got := operationStatus(tc.prev, tc.obs)
			if got.Phase != tc.phase || got.Duration != tc.duration || got.ObservedGeneration != 3 {
				t.Fatalf("phase %q duration %q generation %d, want %q %q 3", got.Phase, got.Duration, got.ObservedGeneration, tc.phase, tc.duration)
			}
			if len(got.Conditions) != len(tc.conds) {
				t.Fatalf("conditions %v, want %v", got.Conditions, tc.conds)
			}
			for typ, reason := range tc.conds {
				if c := meta.FindStatusCondition(got.Conditions, typ); c == nil || c.Reason != reason {
					t.Fatalf("condition %s = %v, want reason %s", typ, c, reason)
				}
			}
			if tc.prev.Phase == "" && len(tc.prev.Conditions) == 0 && got == tc.prev {
				t.Fatal("the stored status was changed in place")
			}
		})
	}
}

// TestOperationStatusRecords: waitingFor.operationComplete follows
// runAfter, the Cron run times never go back, and where the work ran and
// its infos are recorded.
func TestOperationStatusRecords(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	waiting := operationStatus(&datav1alpha1.OperationStatus{}, observations{now: now, runAfter: isTrue(ReasonRunAfterPending, "")})
	if w := waiting.WaitingFor.OperationComplete; w == nil || !*w {
		t.Fatalf("waitingFor.operationComplete = %v while waiting", w)
	}
	done := operationStatus(waiting, observations{now: now, runAfter: isFalse(ReasonRunAfterComplete, "")})
	if w := done.WaitingFor.OperationComplete; w == nil || *w {
		t.Fatalf("waitingFor.operationComplete = %v once the runAfter operation completed", w)
	}

	earlier, later := metav1.NewTime(now.Add(-time.Hour)), metav1.NewTime(now.Add(-time.Minute))
	prev := &datav1alpha1.OperationStatus{LastScheduleTime: &later, LastSuccessfulTime: &earlier}
	aff := nodeAffinityOf(&corev1.Pod{}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}, nil)
	got := operationStatus(prev, observations{now: now, lastSchedule: &earlier, lastSuccessful: &later, nodeAffinity: aff,
		infos: map[string]string{datav1alpha1.BackupLocationPath: "pvc://backups/x"}})
	if !got.LastScheduleTime.Equal(&later) || !got.LastSuccessfulTime.Equal(&later) {
		t.Fatalf("lastScheduleTime %v lastSuccessfulTime %v, want both %v", got.LastScheduleTime, got.LastSuccessfulTime, later)
	}
	if got.NodeAffinity == nil || got.Infos[datav1alpha1.BackupLocationPath] != "pvc://backups/x" {
		t.Fatalf("nodeAffinity %v infos %v", got.NodeAffinity, got.Infos)
	}
}

// TestTransitions: an Event for each change of phase and of what a
// Pending operation waits for; failures are Warnings.
func TestTransitions(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	step := func(prev *datav1alpha1.OperationStatus, o observations) *datav1alpha1.OperationStatus {
		o.now = now
		return operationStatus(prev, o)
	}
	none := &datav1alpha1.OperationStatus{}
	waitingRunAfter := step(none, observations{runAfter: isTrue(ReasonRunAfterPending, "waiting for DataLoad a")})
	held := step(waitingRunAfter, observations{runAfter: isFalse(ReasonRunAfterComplete, ""), claim: isFalse(ReasonDatasetHeld, "held by DataLoad b")})
	heldAgain := step(held, observations{claim: isFalse(ReasonDatasetHeld, "held by DataLoad b")})
	executing := step(held, observations{claim: isTrue(ReasonClaimed, ""), run: &run{name: "j", executing: true}})
	failed := step(executing, observations{run: &run{name: "j", done: true, message: "DeadlineExceeded"}})
	for _, tc := range []struct {
		name       string
		prev, next *datav1alpha1.OperationStatus
		want       bool   // an Event
		typ        string // its type
		reason     string // its reason
	}{
		{"first wait", none, waitingRunAfter, true, corev1.EventTypeNormal, ReasonRunAfterPending},
		{"another reason to wait", waitingRunAfter, held, true, corev1.EventTypeNormal, ReasonDatasetHeld},
		{"still held", held, heldAgain, false, "", ""},
		{"starts", held, executing, true, corev1.EventTypeNormal, "Executing"},
		{"fails", executing, failed, true, corev1.EventTypeWarning, ReasonJobFailed},
	} {
		sum, typ, ok := transition(tc.prev, tc.next)
		if ok != tc.want || (ok && (typ != tc.typ || sum.reason != tc.reason)) {
			t.Errorf("%s: event %v %s %s, want %v %s %s", tc.name, ok, typ, sum.reason, tc.want, tc.typ, tc.reason)
		}
	}
}
