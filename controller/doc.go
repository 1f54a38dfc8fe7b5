// Package controller runs Sluice's controller manager (`sluice controller`):
// leader election, metrics and health probes, and the reconcilers of the
// sub-packages. Composition happens here (manager.go; the engines come in
// Options.Engines, built once in main from engines/registry); reconcilers
// get their dependencies as struct fields.
//
// # What the controller keeps in memory
//
// The API server holds the state; a restart loses only what is listed
// here. Owner, what it holds, its bound, who makes it forget, and what
// happens without it:
//
//   - Informer cache (the manager; CacheOptions, controller/cachetrim):
//     every kind the reconcilers watch, kept current by watches. Objects
//     lose their managedFields; a tenant's Pod keeps only which Datasets it
//     uses, its phase and identity, Sluice's own Pods the fields read.
//     Secrets are never cached. Bound: the cluster's objects of those
//     kinds (about 3.4 KB of heap a tenant Pod; docs/benchmarks.md).
//   - Runtime own writes (cacheruntime.Reconciler.writes,
//     internal/ownwrites): per runtime, the last 8 resourceVersions its
//     status writes replaced and the runtime written, until the cache
//     shows the write or the runtime goes. Without it: only slower (a
//     refused patch and a live read); measured on tests/scale, 500
//     Datasets: bound in 52.6 s mean with it, 55.3 s without (ranges
//     overlap; cacheruntime/nodestate.go).
//   - Operation own writes (operation.Reconciler.writes): the same for
//     data operations, trusted for 10 s. Without it: only slower
//     (operation/ownwrites.go: 4.0 live reads an operation instead of 3.0).
//   - Node label states (cacheruntime nodeStates): per node, a lock and the
//     labels and resourceVersion of this controller's last change, preferred
//     to the cache for 10 s. Bound: the nodes running workers. Without it:
//     only slower (refused patches; measured in nodestate.go).
//   - Metadata records (cacheruntime metadataRecords): per Dataset, when its
//     usage was last counted, when a failed count may be retried and the
//     last Job read; forgotten when the runtime or Dataset goes. Without it
//     (after a restart): a counted Dataset is counted again one refresh
//     interval later, never at once.
//   - Usage reads (cacheruntime usageReads and the wake channel): at most
//     one read of a Dataset's usage pages under way, and its result until
//     the next reconcile (which the channel wakes) writes it; forgotten
//     with the runtime. Without it the reads would hold reconciles.
//   - Helm release memo (helm.Memo, per runtime reconciler): the releases
//     last found in sync with a digest of chart and values, for a TTL, and
//     forgotten on uninstall. Without it: only slower (a List of the
//     namespace's release records each reconcile).
//   - Helm last good (helm lastGood, per Helm client): per release, the
//     chart and values this process last deployed or found deployed: what
//     a rollback re-renders. Forgotten on uninstall. Without it (after a
//     restart) a failed upgrade is not rolled back; nothing stored is
//     applied instead (docs/security.md, N3/N4).
//   - Helm in-flight set (helm inFlight, per Helm client): releases with an
//     action of this process under way, so that a pending record no action
//     holds is known to be stale. Empty when idle.
//   - Helm reachability probe (helm probedKube): when the API server last
//     answered Helm's client; serialises the client's lazy set-up.
//   - Chart cache (helm.ChartCache): each embedded chart loaded once.
//     Never invalidated: the embedded charts do not change in a process.
//   - Helm clients (helmClients): one per namespace that has had a runtime
//     or operation; never forgotten (bound: those namespaces).
//   - Guard policy data (trust/guardcheck.Checker): the policy data the
//     guard rules read, reused for 5 s (MaxAge); a denial is confirmed with
//     fresh data, so a stale copy can only delay a refusal by 5 s.
//   - Host port allocation (hostports.Allocator, one shared by every
//     runtime reconciler): per runtime with components on the host
//     network, the ports it holds by name, loaded once from every
//     runtime's status.hostPorts (read from the API server) before the
//     first assignment; a runtime's entry goes when the runtime does.
//     Bound: those runtimes. Without it (after a restart or on a new
//     leader): rebuilt from the records, which are written before a
//     release listening on the ports is rendered, so no port is handed out
//     twice.
//   - Failure counts (metrics.Failures): per runtime UID, the failed
//     reconciles Fluid's metrics count; those of runtimes gone are dropped
//     at each scrape.
package controller
