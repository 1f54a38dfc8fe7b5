package operation

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// verdict is one condition's value.
type verdict struct {
	status          metav1.ConditionStatus
	reason, message string
}

func isTrue(reason, message string) *verdict {
	return &verdict{metav1.ConditionTrue, reason, message}
}

func isFalse(reason, message string) *verdict {
	return &verdict{metav1.ConditionFalse, reason, message}
}

// run is the Job of an operation, or of a Cron operation's latest run.
type run struct {
	name string
	// executing: the Job runs (it is not suspended and has not finished).
	executing bool
	// done: the Job finished; succeeded says how.
	done, succeeded bool
	// message explains a failure (the Job's Failed condition).
	message string
	// started and finished bound the run, for its duration.
	started, finished time.Time
}

// observations are what one reconcile saw that the operation's status
// reports: the input of operationStatus. A nil field was not observed this
// round, and the status keeps what it said.
type observations struct {
	// now is the reconcile's clock.
	now time.Time
	// generation is the operation's metadata.generation as read.
	generation int64
	// created is the operation's creation, the start of a failure's
	// duration when no Job ran.
	created time.Time
	// failure is a verdict that ends the operation: Failed=True with its
	// reason.
	failure *verdict
	// runAfter is WaitingForRunAfter (True: waiting).
	runAfter *verdict
	// dataset is DatasetReady.
	dataset *verdict
	// claim is DatasetClaimed.
	claim *verdict
	// release is ReleaseInstalled.
	release *verdict
	// run is the Job of the operation (for Cron: of its latest run).
	run *run
	// newRun: a Cron run is scheduled but not executing yet, so the last
	// run's Complete or Failed no longer describes the operation.
	newRun bool
	// lastSchedule and lastSuccessful are a Cron operation's run times.
	lastSchedule, lastSuccessful *metav1.Time
	// nodeAffinity is where the finished run's pod ran.
	nodeAffinity *corev1.NodeAffinity
	// infos are results to record (a backup's location).
	infos map[string]string
}

// phase is the operation's phase as o shows it.
func (o observations) phase() datav1alpha1.Phase {
	switch r := o.run; {
	case o.failure != nil:
		return datav1alpha1.PhaseFailed
	case r != nil && r.done && r.succeeded:
		return datav1alpha1.PhaseComplete
	case r != nil && r.done:
		return datav1alpha1.PhaseFailed
	case r != nil && r.executing:
		return datav1alpha1.PhaseExecuting
	}
	return datav1alpha1.PhasePending
}

// finished: this reconcile saw the operation (or a Cron run) end, so its
// claim is released.
func (o observations) finished() bool {
	return o.failure != nil || (o.run != nil && o.run.done)
}

// operationStatus is the operation's status after a reconcile that observed
// o, starting from prev (the status as stored): the conditions observed,
// the phase derived from them, duration, the Cron run times, where the
// work ran and observedGeneration.
func operationStatus(prev *datav1alpha1.OperationStatus, o observations) *datav1alpha1.OperationStatus {
	s := prev.DeepCopy()
	s.ObservedGeneration = o.generation
	set := func(typ string, v *verdict) {
		if v != nil {
			meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: typ, Status: v.status, Reason: v.reason, Message: datav1alpha1.ConditionMessage(v.message),
				ObservedGeneration: o.generation, LastTransitionTime: metav1.NewTime(o.now)})
		}
	}
	set(ConditionWaitingForRunAfter, o.runAfter)
	set(ConditionDatasetReady, o.dataset)
	set(ConditionDatasetClaimed, o.claim)
	set(ConditionReleaseInstalled, o.release)
	if o.runAfter != nil {
		s.WaitingFor.OperationComplete = ptr.To(o.runAfter.status == metav1.ConditionTrue)
	}

	wasFinished := prev.Finished()
	s.Phase = o.phase()
	switch r := o.run; {
	case o.failure != nil:
		meta.RemoveStatusCondition(&s.Conditions, ConditionComplete)
		set(ConditionFailed, o.failure)
		if !wasFinished {
			s.Duration = duration(o.created, o.now)
		}
	case r != nil && r.done:
		if r.succeeded {
			meta.RemoveStatusCondition(&s.Conditions, ConditionFailed)
			set(ConditionComplete, isTrue(ReasonJobComplete, "Job "+r.name+" completed"))
		} else {
			meta.RemoveStatusCondition(&s.Conditions, ConditionComplete)
			set(ConditionFailed, isTrue(ReasonJobFailed, "Job "+r.name+" failed: "+r.message))
		}
		s.Duration = duration(r.started, r.finished)
	case o.newRun || r != nil:
		meta.RemoveStatusCondition(&s.Conditions, ConditionComplete)
		meta.RemoveStatusCondition(&s.Conditions, ConditionFailed)
		s.Duration = unfinished
	case !wasFinished:
		s.Duration = unfinished
	}
	if o.lastSchedule != nil && (s.LastScheduleTime == nil || s.LastScheduleTime.Before(o.lastSchedule)) {
		s.LastScheduleTime = o.lastSchedule.DeepCopy()
	}
	if o.lastSuccessful != nil && (s.LastSuccessfulTime == nil || s.LastSuccessfulTime.Before(o.lastSuccessful)) {
		s.LastSuccessfulTime = o.lastSuccessful.DeepCopy()
	}
	if o.nodeAffinity != nil {
		s.NodeAffinity = o.nodeAffinity.DeepCopy()
	}
	if len(o.infos) > 0 {
		s.Infos = map[string]string{}
		for k, v := range o.infos {
			s.Infos[k] = v
		}
	}
	return s
}

// ended reports an operation (for Cron: a run) that this write took to
// Complete or Failed from another phase, and how long it ran: its Job's
// run, or, failed before one ran, since its creation.
func ended(prev, next *datav1alpha1.OperationStatus, o observations) (datav1alpha1.Phase, time.Duration, bool) {
	if next.Phase == prev.Phase || (next.Phase != datav1alpha1.PhaseComplete && next.Phase != datav1alpha1.PhaseFailed) {
		return "", 0, false
	}
	start, end := o.created, o.now
	if r := o.run; o.failure == nil && r != nil && r.done {
		start, end = r.started, r.finished
	}
	if start.IsZero() || end.Before(start) {
		return next.Phase, 0, true
	}
	return next.Phase, end.Sub(start), true
}

// unfinished is the duration of an operation that has not finished, as
// Fluid reports it.
const unfinished = "Unfinished"

// duration is how long from start to end, to the second.
func duration(start, end time.Time) string {
	if start.IsZero() || end.Before(start) {
		return "0s"
	}
	return end.Sub(start).Round(time.Second).String()
}

// summary is the one line an Event says about an operation's state: its
// phase, and the reason and message of what decided it.
type summary struct {
	phase           datav1alpha1.Phase
	reason, message string
}

// summarise is the summary of a status: for Complete and Failed their
// condition; for Executing the run; for Pending the first condition that
// holds the operation back, in the order the reconciler checks them.
func summarise(s *datav1alpha1.OperationStatus) summary {
	out := summary{phase: s.Phase}
	switch s.Phase {
	case datav1alpha1.PhaseComplete, datav1alpha1.PhaseFailed:
		if c := meta.FindStatusCondition(s.Conditions, string(s.Phase)); c != nil {
			out.reason, out.message = c.Reason, c.Message
		}
		return out
	case datav1alpha1.PhaseExecuting:
		out.reason, out.message = "Executing", "the operation's Job runs"
		return out
	}
	blockers := []struct {
		typ     string
		blocked metav1.ConditionStatus
	}{
		{ConditionWaitingForRunAfter, metav1.ConditionTrue},
		{ConditionDatasetReady, metav1.ConditionFalse},
		{ConditionDatasetClaimed, metav1.ConditionFalse},
		{ConditionReleaseInstalled, metav1.ConditionFalse},
	}
	for _, b := range blockers {
		if c := meta.FindStatusCondition(s.Conditions, b.typ); c != nil && c.Status == b.blocked {
			out.reason, out.message = c.Reason, c.Message
			return out
		}
	}
	out.reason, out.message = "Pending", "the operation waits to start"
	return out
}

// transition is the Event for the status going from prev to next, if any:
// every change of phase, and of what a Pending operation waits for.
// Failures are Warnings, the rest Normal.
func transition(prev, next *datav1alpha1.OperationStatus) (summary, string, bool) {
	a, b := summarise(prev), summarise(next)
	if a.phase == b.phase && a.reason == b.reason {
		return b, "", false
	}
	typ := corev1.EventTypeNormal
	if b.phase == datav1alpha1.PhaseFailed {
		typ = corev1.EventTypeWarning
	}
	return b, typ, true
}
