// Package enginetest holds the mechanics the engines' tests share: rendering
// an engine's chart for a Dataset and runtime with the Helm SDK, comparing
// the rendered templates with golden files (go test -update rewrites them),
// decoding rendered manifests strictly, finding a pod's volumes and mounts,
// checking that an error is an InvalidSpec engines.Error, and, for each
// engine's TestPlacementConcernsWorkersOnly, rendering datasets of each
// placement and evaluating the workers' required pod anti-affinity against
// the labels and namespaces of workers, FUSE and master pods. For data
// operations it renders an operation's release and decodes its one
// workload (RenderOperation), and says what a container's process receives
// after the kubelet's $(VAR) expansion (Expand, Effective). For the
// hostile-strings tests it holds the hostile strings and decodes a whole
// rendered release strictly, object by object (DecodeRelease), to check
// where each string arrived.
//
// Only the engines' _test.go files import it. Each engine's own assertions
// stay in the engine's tests.
package enginetest
