package snapshot

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/internal/optional"
)

// readWrapped reads the PVC key names from Wrapped and, when a Dataset
// wraps it, puts it in src.wrapped and that Dataset's own PVC, whose PV
// serves the volume, in src.pvc. The PVC's mark
// (datav1alpha1.LabelWrappedByDataset) only names the Dataset; it is
// trusted when that Dataset bears it out (wraps): a mark set by hand on
// a tenant's PVC, which the chart's wrap-label guard refuses, still lends
// no Dataset of another namespace, no Dataset that does not mount that
// very PVC and no runtime but a ThinRuntime. ok is false for a PVC that
// is missing, unmarked, or whose mark is not borne out, and for a Dataset
// whose own PVC is missing: the Pod then mounts the PVC as it is.
func (g *Gatherer) readWrapped(ctx context.Context, key types.NamespacedName, src *sources, tracking bool) (types.NamespacedName, bool, error) {
	// Changes does not track the wrapped PVCs' reader, and any PVC may be
	// marked at any time: what is read here is not remembered by Changes.
	src.untracked = true
	r := g.Wrapped
	if r == nil {
		r = g.Reader
	}
	pvc := &corev1.PersistentVolumeClaim{}
	if found, err := optional.Get(ctx, r, key, pvc); err != nil || !found {
		return types.NamespacedName{}, false, err
	}
	name := pvc.Labels[datav1alpha1.LabelWrappedByDataset]
	if name == "" {
		return types.NamespacedName{}, false, nil
	}
	dsKey := types.NamespacedName{Namespace: pvc.Namespace, Name: name}
	ds := &datav1alpha1.Dataset{}
	if found, err := g.get(ctx, dsKey, ds, src, tracking); err != nil || !found || !wraps(ds, pvc.Name) {
		return types.NamespacedName{}, false, err
	}
	own := &corev1.PersistentVolumeClaim{}
	if found, err := g.get(ctx, dsKey, own, src, tracking); err != nil || !found {
		return types.NamespacedName{}, false, err
	}
	if k, ok := DatasetOfClaim(own); !ok || k != dsKey {
		return types.NamespacedName{}, false, nil
	}
	src.pvc, src.wrapped = own, pvc
	return dsKey, true, nil
}

// wraps reports whether Dataset ds, of the PVC's namespace, wraps the PVC
// named claim: it is its one mount, the whole PVC, and the Dataset is
// bound to a ThinRuntime.
func wraps(ds *datav1alpha1.Dataset, claim string) bool {
	c, ok := datav1alpha1.WrappedClaim(ds)
	return ok && c == claim && len(ds.Status.Runtimes) > 0 && strings.EqualFold(ds.Status.Runtimes[0].Type, datav1alpha1.WrapRuntimeType)
}
