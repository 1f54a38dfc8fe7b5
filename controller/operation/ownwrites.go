package operation

import "time"

// This file is an optimisation: without it the reconciler is still correct
// (a status computed from a cache behind the controller's last write is
// refused by the write's resourceVersion precondition, and writeStatus
// then reads the operation afresh), but such a reconcile costs requests
// for nothing. The informer cache lags behind the controller's own writes,
// and the writes of an operation's start (the claim, the Job) wake the
// operation again at once. Measured with 30 DataLoads on the simulated
// cluster (2026-12-01): live reads of the DataLoad 4.0 -> 3.0 and status
// patches 4.2 -> 3.0 per operation, no patch refused.

// A reconcile that reads from the cache a version one of this reconciler's
// writes replaced (the finalizer, then the status) reads the past: the
// writes' own update events bring a reconcile of the current version, so
// it waits (controller-internal ownwrites.Memory).

// trustOwnWrite is how long a remembered write makes reconciles wait for
// the cache to show it: long enough for the cache to catch up under load,
// short enough that a lost memory never holds an operation back for long.
const trustOwnWrite = 10 * time.Second
