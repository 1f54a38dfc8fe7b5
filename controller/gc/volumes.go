package gc

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
)

// A Dataset's PV (with its PVC) is owned by the runtime of the Dataset's
// name, which deletes both when it goes (volume.DeleteDatasetVolumes). It
// is an orphan when no runtime of any kind has that name, in the cache and
// then in the API server, and the PV is older than a Period
// (Sweeper.young). As the runtime's deletion, the sweep waits while
// Pods use the Dataset (volume.UsersOf), and it leaves a PV alone whose
// claim is a PVC Sluice did not create.

// cachedVolumes are the PVs Sluice created for Datasets (volume.Owns of the
// Dataset their labels name, and of Sluice's CSI driver), from the cache.
func (s *Sweeper) cachedVolumes(ctx context.Context) ([]*corev1.PersistentVolume, error) {
	list := &corev1.PersistentVolumeList{}
	if err := s.Client.List(ctx, list, client.HasLabels{datav1alpha1.LabelDatasetNamespace, datav1alpha1.LabelDatasetName}); err != nil {
		return nil, fmt.Errorf("listing PVs: %w", err)
	}
	var out []*corev1.PersistentVolume
	for i := range list.Items {
		pv := &list.Items[i]
		if ds := datasetOf(pv); volume.Owns(ds, pv) && pv.Spec.CSI != nil && pv.Spec.CSI.Driver == datav1alpha1.CSIDriverName {
			out = append(out, pv)
		}
	}
	return out, nil
}

// datasetOf is the Dataset (its namespace and name) a volume's labels name.
func datasetOf(obj metav1.Object) *datav1alpha1.Dataset {
	l := obj.GetLabels()
	return &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: l[datav1alpha1.LabelDatasetNamespace], Name: l[datav1alpha1.LabelDatasetName]}}
}

// sweepVolumes deletes the PVC and PVs of the Datasets among pvs whose
// runtime is gone, at most Limit Datasets' (a Dataset's volumes that must
// wait are not counted).
func (s *Sweeper) sweepVolumes(ctx context.Context, o *owners, pvs []*corev1.PersistentVolume) error {
	removed, seen := 0, map[string]bool{}
	for _, pv := range pvs {
		ds := datasetOf(pv)
		key := ds.Namespace + "/" + ds.Name
		if removed >= s.limit() {
			return nil
		}
		if o.names[key] || seen[key] {
			continue
		}
		seen[key] = true
		if s.young(pv) {
			continue
		}
		live, err := s.liveRuntimes(ctx, ds.Namespace, ds.Name)
		if err != nil {
			return err
		}
		if len(live) > 0 {
			continue
		}
		why, err := s.volumesHeld(ctx, ds, pv)
		if err != nil {
			return err
		}
		log := ctrl.LoggerFrom(ctx).WithValues("dataset", key, "pv", pv.Name)
		if why != "" {
			log.V(1).Info("the volumes of a runtime that is gone stay for now", "why", why)
			continue
		}
		log.Info("deleting the volumes of a runtime that is gone")
		if err := volume.DeleteDatasetVolumes(ctx, s.Client, s.Live, ds.Namespace, ds.Name); err != nil {
			return fmt.Errorf("deleting the volumes of Dataset %s: %w", key, err)
		}
		removed++
	}
	return nil
}

// volumesHeld says why the Dataset's volumes must stay although their
// runtime is gone ("" when they may go): Pods that use the Dataset (as a
// runtime's deletion waits for them), or a claim of the PV that Sluice did
// not create.
func (s *Sweeper) volumesHeld(ctx context.Context, ds *datav1alpha1.Dataset, pv *corev1.PersistentVolume) (string, error) {
	users, err := volume.Users(ctx, s.Client, s.Live, ds.Namespace, ds.Name)
	if err != nil {
		return "", err
	}
	if len(users) > 0 {
		return "Pods use the Dataset: " + strings.Join(users, ", "), nil
	}
	ref := pv.Spec.ClaimRef
	if ref == nil {
		return "", nil
	}
	pvc := &corev1.PersistentVolumeClaim{}
	switch err := s.Live.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, pvc); {
	case apierrors.IsNotFound(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("reading the claim %s/%s of PV %s: %w", ref.Namespace, ref.Name, pv.Name, err)
	}
	if ref.UID != "" && ref.UID != pvc.UID {
		return "", nil // the claim the PV was bound to is gone
	}
	if !volume.Owns(ds, pvc) {
		return fmt.Sprintf("PV %s is bound to PVC %s/%s, which Sluice did not create", pv.Name, pvc.Namespace, pvc.Name), nil
	}
	return "", nil
}
