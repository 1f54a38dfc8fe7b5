// Package reference serves reference datasets: a Dataset whose one mount is
// dataset://<namespace>/<name>[/<sub-path>] is bound by a ThinRuntime of its
// name without spec.profileName (the Dataset controller creates it when
// none exists) to the cache of the Dataset it references, with no engine
// release of its own.
//
// A reconcile reads the ThinRuntime, its Dataset, the referenced Dataset,
// that Dataset's runtime and PV; records the reference in the referenced
// Dataset's status.datasetRef (whose deletion then waits); copies the
// ConfigMaps the referenced runtime's FUSE record (the platform's template,
// without the referenced namespace's own volumes) reads into the reference
// dataset's namespace when it is another one (the webhook's FUSE sidecars
// read the copies there); creates the reference dataset's PVC and PV on the
// referenced FUSE mount (the same fluid_path, FUSE label and mount type,
// and the sub-path); and marks the Dataset Bound, with the referenced
// Dataset's cache states, and the runtime with the referenced runtime's
// phases, counts and cacheAffinity. Its status is computed by a pure
// function of what the reconcile observed (status.go) and written once.
//
// Deletion waits for the Pods using the reference dataset, then removes the
// copies, the PVC and the PV, the entry in status.datasetRef, and returns
// the Dataset to NotBound. When the referenced Dataset is gone (its
// deletion forced), the reference dataset goes NotBound with a condition
// naming it, and its deletion does not wait for it.
package reference
