// Package thin is the Thin engine: a ThinRuntime names a cluster-scoped
// ThinRuntimeProfile that brings its own FUSE program (and optionally a
// worker), and the engine merges the two into the values of charts/thin.
//
// The profile is the base and the runtime's own fields override it; see
// Merge for the rule of each field. The FUSE program learns what to mount
// from a JSON document (FuseConfig) mounted at ConfigPath in its container;
// an encrypt option appears there only as the path of a file under
// SecretRoot, projected from its Secret by a secret volume, never as a value.
//
// Because its values depend on another object, the engine implements
// engines.Resolver: the reconciler reads the profile once per reconcile
// (Resolve) and asks the ProfileEngine it returns for the values, topology,
// mount type and FUSE cleanPolicy; the plain Values method only explains
// that. It reports no cache states (CacheMetrics says none) by design: the
// FUSE program is the user's, with no known metrics.
package thin
