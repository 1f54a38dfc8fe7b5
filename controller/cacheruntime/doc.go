// Package cacheruntime reconciles a runtime kind into a working cache: it binds
// the runtime to the Dataset of the same name, installs or upgrades the
// engine's Helm release (controller/helm), follows the workers, creates the
// Dataset's PV and PVC once they are ready and marks the Dataset Bound, then
// keeps Fluid's cache labels on the nodes running ready workers and the
// runtime's and the Dataset's cacheStates current from the metrics
// of the engine's cache-reporting pods (Engine.CacheMetrics); on
// deletion it uninstalls the release, removes the PV and PVC and returns the
// Dataset to NotBound.
package cacheruntime
