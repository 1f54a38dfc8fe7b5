// Package gc is the controller's orphan sweep (reliability audit N8): it
// removes what the controller created for a runtime that is gone without
// its deletion's cleanup, because someone removed the runtime's finalizer
// and deleted it: its FUSE record in the controller's namespace, its
// Dataset's PVC and PV, and its cache labels on nodes. It reuses the
// deletion path's code for each (cacheruntime.DeleteFuseRecord,
// volume.DeleteDatasetVolumes, nodelabels.Patch) and touches only objects
// that carry the marks Sluice gives its own, of owners that are gone.
package gc
