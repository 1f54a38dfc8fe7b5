package cacheruntime

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FailureCounter counts failed reconciles of runtimes, as Fluid's
// controller metrics runtime_setup_error_total and
// runtime_sync_healthcheck_error_total do (controller/metrics.Failures).
type FailureCounter interface {
	// SetupError counts a failed reconcile of rt before its Dataset was
	// bound to it.
	SetupError(rt client.Object)
	// HealthCheckError counts a reconcile of a bound rt that found no ready
	// master or no ready worker.
	HealthCheckError(rt client.Object)
}

// failure is what a reconcile counts as.
type failure int

const (
	noFailure failure = iota
	setupFailure
	healthCheckFailure
)

// classify says what the reconcile s, which ended with err, counts as.
// Fluid counts an error of its engine's setup (before the runtime serves
// the Dataset) and a failed health check afterwards (CheckRuntimeHealthy:
// at least one ready master and one ready worker). Here: until the Dataset
// is bound to the runtime, an error or a failed verdict (the engine refused
// the spec, Helm failed, a conflicting release or volume) is a setup error;
// once bound, a reconcile that finds the masters or the workers with none
// ready is a health-check error. Waiting (for the Dataset, for workers to
// start) is neither, nor is anything while the runtime is deleted.
func classify(s *scope, err error) failure {
	if !s.rt.GetDeletionTimestamp().IsZero() {
		return noFailure
	}
	if !s.setUp {
		if err != nil || s.obs.volumeConflict != "" || s.obs.engine != nil && s.obs.engine.reason != "" {
			return setupFailure
		}
		return noFailure
	}
	if c := s.obs.components; c != nil && (noneReady(c.masters) || noneReady(c.workers)) {
		return healthCheckFailure
	}
	return noFailure
}

// noneReady: the component runs and none of its desired replicas is ready.
func noneReady(c *counts) bool {
	return c != nil && c.desired > 0 && c.ready == 0
}

// countFailure counts the reconcile s if it failed.
func (r *Reconciler) countFailure(s *scope, err error) {
	if r.Failures == nil {
		return
	}
	switch classify(s, err) {
	case setupFailure:
		r.Failures.SetupError(s.rt)
	case healthCheckFailure:
		r.Failures.HealthCheckError(s.rt)
	}
}
