// Package engines is the contract between the controller and the cache
// engines, and the directory holds four kinds of package around it.
//
// The contract is this package: Engine (engine.go), what every engine does
// for a runtime, with the data operations it runs (operation.go) and how its
// Datasets' usage is learnt (metadata.go); the optional interfaces only some
// engines implement (Resolver, MountChecker, CacheFreer, Watcher,
// HostPorter, under one heading in engine.go); the field tables
// (fields.go); and what engines and the controller share about a runtime's
// cache and spec: its recorded host ports (hostports.go), its cache counters
// rendered as status.cacheStates (cache.go, metrics.go, figures.go), host
// cache directories (cachedirs.go), effective mounts (mounts.go), operation
// labels, option layering and the checks of spec strings.
//
// The engine plugins implement it, one package each: alluxio/, jindo/,
// juicefs/, thin/ (with its in-pod programs thin/rclonemount and
// thin/warmup) and fake/ (an engine for tests). A plugin imports the
// contract and the shared workloads, never another plugin.
//
// The registry, registry/, is the one place that names the plugins: the
// engines the controller runs and their field tables. No package outside
// engines/ and tests imports a plugin (.golangci.yml,
// engines-are-registered-once).
//
// The shared workloads, under workloads/, render the Jobs that run beside
// every engine's release, whichever engine serves the runtime:
// workloads/dataop (the values of charts/dataop, the Job or CronJob of one
// data operation, and the pieces engines build its pod from),
// workloads/process (a DataProcess), workloads/cachecleanup (the Jobs that
// remove a deleted runtime's host cache directories) and workloads/ufsmeta
// (the metadata Job that counts a Dataset's files and bytes, with its
// in-pod program, `sluice ufs-count`, and the reading of its result).
//
// The test kit, enginetest/, holds what the engines' and workloads' tests
// share (rendering charts with the Helm SDK, golden files, hostile strings);
// only _test.go files import it (.golangci.yml, enginetest-is-for-tests).
package engines
