package v1alpha1

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// A ThinRuntime Dataset whose one mount is a whole PVC of its namespace,
// pvc://<claim>, wraps that PVC (Fluid's "PVC wrapping"): Pods that keep
// mounting the PVC itself are admitted as Pods of the Dataset (its FUSE
// sidecar or its affinity), so an application gets the Dataset's FUSE
// without changing its volumes.

// LabelWrappedByDataset on a PVC names the Dataset of the PVC's namespace
// that wraps it. Only the controller sets it (the chart's reserved-labels
// guard refuses it to everyone else), and removes it, when it is its
// Dataset's, as the Dataset's ThinRuntime goes; the mutating webhook
// trusts it only for a Dataset that wraps the PVC (WrappedClaim) and is
// bound to a ThinRuntime. Fluid's fluid.io/managed-by, which any tenant
// may set, is not read.
const LabelWrappedByDataset = "dataset.sluice.io/wrapped-by"

// WrapRuntimeType is the runtime type whose Datasets wrap their PVC.
const WrapRuntimeType = "thin"

// volumeScheme starts the mount point of a PVC mount.
const volumeScheme = "pvc://"

// WrappedClaim returns the PVC a Dataset wraps: the claim of its one
// mount when that is pvc://<claim>, the whole PVC. A sub-path
// (pvc://<claim>/<dir>) or other mounts beside it show Pods of the
// Dataset another tree than the PVC's, so such a Dataset wraps nothing.
func WrappedClaim(ds *Dataset) (string, bool) {
	if len(ds.Spec.Mounts) != 1 {
		return "", false
	}
	claim, ok := strings.CutPrefix(ds.Spec.Mounts[0].MountPoint, volumeScheme)
	claim = strings.TrimSuffix(claim, "/")
	if !ok || claim == "" || len(validation.IsDNS1123Subdomain(claim)) > 0 {
		return "", false
	}
	return claim, true
}
