// Package podpatch computes the JSON patch between a Pod and its mutated
// copy by walking the Go values of the fields mutators change, the
// admission fast path's replacement for marshalling both and diffing them;
// Reference is that simple way, kept as the oracle.
package podpatch
