// Package dataset is the Dataset's own lifecycle controller: it gives a new
// Dataset the phase NotBound, keeps its finalizer, and on deletion waits
// while Pods use the Dataset or reference datasets mount it, then deletes
// the runtime bound to it and waits for the runtime's own cleanup (its
// release, PV, PVC and node labels: controller/cacheruntime) before it
// lets the Dataset go.
//
// The runtime controller binds and unbinds the Dataset and writes every
// other phase; this controller only fills an empty phase, with the
// Dataset's resourceVersion as the patch's precondition, so that it never
// replaces a phase written concurrently. It deletes only runtimes the
// Dataset's status lists as bound to it (same name and namespace, a known
// type), never waits for a runtime that is gone or of a type it does not
// know, and lets a Dataset that was never bound go at once.
package dataset
