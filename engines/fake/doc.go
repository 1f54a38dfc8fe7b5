// Package fake is an engine for tests: it serves any runtime kind with a
// release of pause-image pods (a worker StatefulSet sized by spec.replicas,
// optionally a master StatefulSet, and a FUSE DaemonSet), so the generic
// runtime reconciler can be exercised without a real cache engine, and runs
// data operations as one pause-image Job (a CronJob for Cron), so the
// operation reconciler can be too.
package fake
