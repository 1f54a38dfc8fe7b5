package operation

import (
	"context"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// observeRuns follows a Cron operation's runs, the Jobs its CronJob
// creates. Every run starts suspended, and the newest is the current one:
//
//   - none yet: the operation is Pending, holding no claim;
//   - finished: the phase is its outcome, and the claim is released;
//   - suspended: the operation claims its Dataset and resumes the run
//     (Executing), or waits Pending naming the holder. While the stored
//     phase still shows the previous run's outcome it first goes back to
//     Pending, and claims on the next reconcile: a claimer judges a holder
//     whose phase is Complete or Failed stale, and would take the Dataset
//     from a run that had just claimed it;
//   - running: Executing.
func (r *Reconciler) observeRuns(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if s.cronJob == nil { // just installed: the cache does not show it yet
		// Idle holds nothing: a claim made at admission goes now, not
		// only once the cache shows the CronJob.
		s.obs.claim = isFalse(ReasonIdle, fmt.Sprintf("waiting for the first run (schedule %q)", s.op.GetSchedule()))
		return ctrl.Result{}, true, r.releaseClaim(ctx, s.op)
	}
	runs, err := r.runsOf(ctx, s.cronJob)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	s.obs.lastSchedule, s.obs.lastSuccessful = runTimes(s.cronJob, runs)
	if len(runs) == 0 {
		// Idle holds nothing: a claim made at admission goes.
		s.obs.claim = isFalse(ReasonIdle, fmt.Sprintf("waiting for the first run (schedule %q)", s.op.GetSchedule()))
		return ctrl.Result{}, true, r.releaseClaim(ctx, s.op)
	}
	current := runs[0]
	rn := runOf(current)
	switch {
	case rn.done:
		s.obs.run = rn
		return ctrl.Result{}, true, r.observePlacement(ctx, s, current)
	case rn.executing:
		s.obs.run = rn
		return ctrl.Result{}, true, nil
	}
	s.obs.newRun = true
	// The stored phase decides, not the cached one: this reconcile's read
	// may be behind the write that recorded the last run's outcome.
	live, err := r.readLive(ctx, s.op)
	if err != nil || live == nil {
		return ctrl.Result{}, false, err
	}
	if live.GetOperationStatus().Finished() {
		s.obs.claim = isFalse(ReasonNewRun, fmt.Sprintf("run %s was scheduled; the Dataset is claimed for it next", current.Name))
		return ctrl.Result{RequeueAfter: time.Second}, false, nil
	}
	if res, next, err := r.claim(ctx, s); err != nil || !next {
		return res, false, err
	}
	patch := client.MergeFrom(current.DeepCopy())
	current.Spec.Suspend = ptr.To(false)
	if err := r.Client.Patch(ctx, current, patch); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("resuming run %s: %w", current.Name, err)
	}
	ctrl.LoggerFrom(ctx).Info("resumed the run once the Dataset was claimed", "job", current.Name)
	rn.executing = true
	s.obs.run = rn
	return ctrl.Result{}, true, nil
}

// runsOf lists the Jobs cj created, newest scheduled first.
func (r *Reconciler) runsOf(ctx context.Context, cj *batchv1.CronJob) ([]*batchv1.Job, error) {
	jobs := &batchv1.JobList{}
	if err := r.Client.List(ctx, jobs, client.InNamespace(cj.Namespace)); err != nil {
		return nil, fmt.Errorf("listing the runs of CronJob %s: %w", cj.Name, err)
	}
	var runs []*batchv1.Job
	for i := range jobs.Items {
		if owner := metav1.GetControllerOf(&jobs.Items[i]); owner != nil && owner.UID == cj.UID {
			runs = append(runs, &jobs.Items[i])
		}
	}
	newestFirst(runs)
	return runs, nil
}

// newestFirst orders runs by when they were scheduled, newest first (by
// name among runs scheduled at once).
func newestFirst(runs []*batchv1.Job) {
	slices.SortFunc(runs, func(a, b *batchv1.Job) int {
		switch {
		case newer(a, b):
			return -1
		case newer(b, a):
			return 1
		}
		return 0
	})
}

func newer(a, b *batchv1.Job) bool {
	ta, tb := scheduled(a), scheduled(b)
	if !ta.Equal(tb) {
		return ta.After(tb)
	}
	return a.Name > b.Name
}

// runTimes are a Cron operation's lastScheduleTime and lastSuccessfulTime:
// the later of what the CronJob reports and what its runs show (the
// CronJob controller prunes old runs, and without it nothing reports).
func runTimes(cj *batchv1.CronJob, runs []*batchv1.Job) (lastSchedule, lastSuccessful *metav1.Time) {
	later := func(a *metav1.Time, t time.Time) *metav1.Time {
		if t.IsZero() || (a != nil && !a.Time.Before(t)) {
			return a
		}
		return &metav1.Time{Time: t}
	}
	lastSchedule, lastSuccessful = cj.Status.LastScheduleTime.DeepCopy(), cj.Status.LastSuccessfulTime.DeepCopy()
	for _, j := range runs {
		lastSchedule = later(lastSchedule, scheduled(j))
		if rn := runOf(j); rn.done && rn.succeeded {
			lastSuccessful = later(lastSuccessful, rn.finished)
		}
	}
	return lastSchedule, lastSuccessful
}
