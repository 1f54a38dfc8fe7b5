// Package cacheruntime reconciles a runtime kind into a working cache: it binds
// the runtime to the Dataset of the same name, installs or upgrades the
// engine's Helm release (controller/helm), follows the workers, creates the
// Dataset's PV and PVC once they are ready and marks the Dataset Bound (and,
// for a ThinRuntime, the PVC its Dataset wraps: wrap.go), then
// keeps Fluid's cache labels on the nodes running ready workers and the
// runtime's and the Dataset's cacheStates current from the metrics
// of the engine's cache-reporting pods (Engine.CacheMetrics); on
// deletion it uninstalls the release, removes the PV and PVC (and the wrap
// mark) and returns the Dataset to NotBound.
//
// A reconcile has one shape (cacheruntime_controller.go): get the runtime,
// ensure the finalizer (or clean up), run the phases in order (phases.go:
// Dataset, engine, release, workloads, volumes, binding, node labels,
// metadata, cache states), each recording what it observed in the
// reconcile's scope, then compute the runtime's and the Dataset's status
// from those observations with pure functions (status.go: root
// conditions, Ready summarising them, counts and Fluid's phase fields;
// datasetstatus.go: Ready, binding, mounts, cache states and usage) and
// write each at most once (writes.go, through controller/internal/statuspatch).
// A reconcile reads the world again each time; what it remembers between
// reconciles, each an optimisation measured to pay for itself or a bound
// on work in flight, is the controller's ledger (controller/doc.go): its
// own last runtime writes (a reconcile whose cache does not show them yet
// works from the written runtime instead of a refused patch), the labels
// it last wrote on each node (nodestate.go), the Helm release memo
// (controller/helm), and each Dataset's metadata records and usage reads
// (metadata_due.go, metadata_pages.go).
package cacheruntime
