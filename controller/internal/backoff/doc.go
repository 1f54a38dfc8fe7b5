// Package backoff is the requeue back-off of Sluice's reconcilers: how
// long a runtime, Dataset or operation whose reconcile failed waits
// before it is tried again.
package backoff
