package webhook

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// wrappedClaims is the webhook's cache of the PVCs ThinRuntime Datasets
// wrap (labelled datav1alpha1.LabelWrappedByDataset, which only the
// controller sets): the main cache holds the datasets' own PVCs
// (fluid.io/dataset-id), and one label selector cannot select either
// label. Its PVCs are trimmed as the main cache's are (trimClaim). The
// gatherer reads them as snapshot.Gatherer.Wrapped.
type wrappedClaims struct {
	cache.Cache
}

// newWrappedClaims builds the cache and adds it to the manager, which
// starts it.
func newWrappedClaims(mgr manager.Manager) (*wrappedClaims, error) {
	marked, _ := labels.NewRequirement(datav1alpha1.LabelWrappedByDataset, selection.Exists, nil)
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
		DefaultUnsafeDisableDeepCopy: ptr.To(true),
		ByObject: map[client.Object]cache.ByObject{
			&corev1.PersistentVolumeClaim{}: {Label: labels.NewSelector().Add(*marked), Transform: trimClaim},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("creating the cache of wrapped PVCs: %w", err)
	}
	if err := mgr.Add(c); err != nil {
		return nil, err
	}
	return &wrappedClaims{Cache: c}, nil
}

// sync starts the PVC informer and waits until it has synced: the webhook
// is not ready before.
func (w *wrappedClaims) sync(ctx context.Context) error {
	if _, err := w.GetInformer(ctx, &corev1.PersistentVolumeClaim{}); err != nil {
		return fmt.Errorf("starting the informer of wrapped PVCs: %w", err)
	}
	if !w.WaitForCacheSync(ctx) {
		return errors.New("the cache of wrapped PVCs did not sync")
	}
	return nil
}
