// Package webhook serves Sluice's admission webhooks (`sluice webhook`): a
// controller-runtime manager whose caches feed the policy input, whose
// webhook server serves HTTPS with a certificate hot-reloaded from a
// directory (provided, and in self-managed mode created, rotated and
// injected, by webhook/certs), and whose policy reloader recompiles the Rego
// bundle when policy ConfigMaps change. /readyz fails until the bundle has
// compiled, the caches have synced and a serving certificate is loaded that
// both webhook configurations trust.
//
// An admission is compile (once per bundle, webhook/policy) → evaluate
// (policy.Compiled.Eval) → decode (webhook/decision) → mutate (the
// mutators of webhook/mutating) → diff (webhook/internal/podpatch). What
// exists only to meet the latency target (p50 ≤ 0.1 ms, see
// docs/design/admission-fast-path.md) lives under webhook/internal, each
// part beside the simple way it replaces, its oracle in tests.
//
// # Caches on the admission path
//
// Each is there because a measurement showed it pays (docs/benchmarks.md),
// and none may change a decision: without any of them the webhook admits
// the same Pods the same way, only slower. Owner, what it holds, and when
// it stops holding it:
//
//   - Informer caches (the manager; CacheOptions): every object the policy
//     input is read from. Kept current by watches.
//   - Compiled bundle (policy.Engine): the prepared queries and their
//     residual rules, with the policy data folded in. Replaced, atomically,
//     when a new bundle compiles (Reloader, on policy ConfigMap changes);
//     a bundle that fails to compile leaves the last good one.
//   - Decision memo (policy.Memo, held by mutating.Pipeline; bounded by
//     --decision-cache-size decisions and --decision-cache-bytes of inputs,
//     policy.InputSize): mutating decisions by bundle generation and input
//     document, compared as Go values (mutating.Memo: reflect.DeepEqual, the
//     gatherer's remembered Rego values left out), so that a repeated Pod
//     is found without building its Rego value; the memo keeps its own
//     copy of each input (about what InputSize counts, up to twice it for
//     inputs of many small values), at most 8 under one hash (a lookup
//     compares those). A new bundle has a new generation, so nothing
//     of the old one is found; least recently used entries are evicted, an
//     input over an eighth of the bytes is never kept; bundles that call
//     nondeterministic builtins are never memoised.
//   - Specialised variants (specialise.Specialiser, one per query of a
//     compiled bundle): a query per input class, at most 16 per query,
//     built on a class's first input. They go with their bundle;
//     --specialise-policies=false makes none.
//   - Closures (quickeval.Program, one per prepared query, general or
//     specialised): each holds the base data its query reads
//     (data.sluice.config), read when the query was compiled. They go with
//     their bundle, whose data change compiles a new one; --quick-eval=false
//     compiles none.
//   - Volume memo (snapshot.Gatherer): gathered dataset volumes, keyed by
//     the volume and the UID and resourceVersion of every object they were
//     read from, so a changed object changes the key. It starts over at
//     8192 entries.
//   - Tracked memo (snapshot.Gatherer): gathered volumes by namespace,
//     claim and volume, used without reading the objects again while each
//     still has the change stamp it had when read; only while Changes
//     tracks, and not for volumes read from kinds it does not track. It
//     starts over at 8192 entries.
//   - Change stamps (snapshot.Changes, fed by the informers' event
//     handlers, registered in setupReloader): a sequence number per object,
//     new on every add and update, removed on delete.
//   - Namespace memo (snapshot.Gatherer): the latest namespace by name,
//     used while its UID and resourceVersion are those of the cache's.
//   - Per-object lazy Rego values (snapshot.DatasetVolume and Namespace,
//     RegoValue): the policy value of a remembered volume or namespace,
//     converted on first use. It lives as long as the memo entry that holds
//     the object.
//   - Converter pool (regovalue): the scratch space of conversions, reused
//     across them; cleared after each, so it holds no value in between.
//   - Encoder table (regovalue): a converter per Go type, with its fields'
//     key terms. Never invalidated: a process's types do not change.
//   - Diff type table (podpatch): how each Go type is diffed. Never
//     invalidated, for the same reason.
package webhook
