// Package nodelabels writes the node labels that say which Datasets a
// node caches (fluid.io/s-*, their capacities, fluid.io/dataset-num and
// fluid_exclusive): the label keys of one runtime's cache, and the merge
// patch that adds or removes them. The runtime reconciler
// (controller/cacheruntime) sets and clears them; the orphan sweep
// (controller/gc) clears those of runtimes that are gone.
package nodelabels
