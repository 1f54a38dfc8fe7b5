package reference

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/internal/optional"
)

// copyConfigMaps keeps, in the reference dataset's namespace when it is
// not the referenced Dataset's, a copy of each ConfigMap the referenced
// runtime's FUSE record (datav1alpha1.FuseRecord, the platform's template
// the webhook builds other namespaces' sidecars from) reads
// (datav1alpha1.ObjectsReadBy), named datav1alpha1.ReferenceCopyName and
// owned by the reference dataset, so that the FUSE sidecars the webhook
// injects into its Pods find them; and removes the copies no longer read.
// Secrets are not copied. The referenced namespace's FUSE DaemonSet is
// not read: its users may change it, or mount ConfigMaps of their choice
// through the runtime's spec.volumes, none of which reaches the sidecars
// (audit N7), so none is copied either.
func (r *Reconciler) copyConfigMaps(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	want := map[string]string{} // copy name -> source name
	if s.ds.Namespace != s.target.Namespace && r.FuseRecords != "" {
		record := &corev1.PodTemplate{}
		key := types.NamespacedName{Namespace: r.FuseRecords, Name: datav1alpha1.FuseRecordName(s.targetRuntime.GetUID())}
		if found, err := optional.Get(ctx, r.reader(), key, record); err != nil {
			return ctrl.Result{}, false, err
		} else if found && len(record.Template.Spec.Containers) > 0 {
			spec := &record.Template.Spec
			cms, _ := datav1alpha1.ObjectsReadBy(&spec.Containers[0], spec.Volumes)
			for _, name := range cms {
				want[datav1alpha1.ReferenceCopyName(s.ds.Name, name)] = name
			}
		}
	}
	for _, copyName := range slices.Sorted(maps.Keys(want)) {
		conflict, err := r.ensureCopy(ctx, s, want[copyName], copyName)
		if err != nil {
			return ctrl.Result{}, false, err
		}
		if conflict != "" {
			s.obs.set(ConditionVolumeBound, no(ReasonVolumeConflict, "%s", conflict))
			return ctrl.Result{RequeueAfter: waitDataset}, false, nil
		}
	}
	return ctrl.Result{}, true, r.deleteCopies(ctx, s.ds.Namespace, s.ds.Name, want)
}

// ensureCopy creates or updates the copy of ConfigMap source; conflict
// says why it cannot (an object of its name that is not Sluice's copy).
func (r *Reconciler) ensureCopy(ctx context.Context, s *scope, source, name string) (conflict string, err error) {
	src := &corev1.ConfigMap{}
	srcKey := types.NamespacedName{Namespace: s.target.Namespace, Name: source}
	if err := r.reader().Get(ctx, srcKey, src); err != nil {
		// An optional ConfigMap that does not exist has no copy either.
		return "", client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.ds.Namespace, Name: name}}
	switch err := r.reader().Get(ctx, client.ObjectKeyFromObject(cm), cm); {
	case apierrors.IsNotFound(err):
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.ds.Namespace, Name: name,
			Labels:      CopyLabels(s.ds),
			Annotations: map[string]string{datav1alpha1.AnnotationCreatedBy: volume.CreatedBy, AnnotationCopiedFrom: srcKey.String()}},
			Data: src.Data, BinaryData: src.BinaryData}
		if err := controllerutil.SetControllerReference(s.ds, cm, r.Client.Scheme()); err != nil {
			return "", err
		}
		if err := r.Client.Create(ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("copying ConfigMap %s to %s/%s: %w", srcKey, cm.Namespace, name, err)
		}
		return "", nil
	case err != nil:
		return "", err
	}
	if !volume.Owns(s.ds, cm) || cm.Annotations[AnnotationCopiedFrom] != srcKey.String() {
		return fmt.Sprintf("ConfigMap %s/%s exists and is not Sluice's copy of %s for Dataset %s/%s (the FUSE sidecars of its Pods read that copy): rename or delete it",
			cm.Namespace, name, srcKey, s.ds.Namespace, s.ds.Name), nil
	}
	if maps.Equal(cm.Data, src.Data) && equalBinary(cm.BinaryData, src.BinaryData) {
		return "", nil
	}
	cm.Data, cm.BinaryData = src.Data, src.BinaryData
	if err := r.Client.Update(ctx, cm); err != nil {
		return "", fmt.Errorf("updating the copy %s/%s of ConfigMap %s: %w", cm.Namespace, name, srcKey, err)
	}
	return "", nil
}

func equalBinary(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
}

// CopyLabels are the labels of a reference dataset's ConfigMap copies:
// its own (volume.Owns) and those the controller's write guard admits.
func CopyLabels(ds *datav1alpha1.Dataset) map[string]string {
	key := datav1alpha1.KeyOf(ds)
	return map[string]string{
		datav1alpha1.LabelDatasetNamespace: ds.Namespace,
		datav1alpha1.LabelDatasetName:      ds.Name,
		labelDataset:                       key.DatasetID(),
		labelManagedBy:                     "sluice",
	}
}

// deleteCopies deletes the ConfigMap copies Sluice made for the Dataset
// namespace/name that keep does not name.
func (r *Reconciler) deleteCopies(ctx context.Context, namespace, name string, keep map[string]string) error {
	list := &corev1.ConfigMapList{}
	if err := r.reader().List(ctx, list, client.InNamespace(namespace),
		client.MatchingLabels{datav1alpha1.LabelDatasetNamespace: namespace, datav1alpha1.LabelDatasetName: name}); err != nil {
		return fmt.Errorf("listing the ConfigMap copies of Dataset %s/%s: %w", namespace, name, err)
	}
	owner := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	for i := range list.Items {
		cm := &list.Items[i]
		if _, kept := keep[cm.Name]; kept || !volume.Owns(owner, cm) || cm.Annotations[AnnotationCopiedFrom] == "" {
			continue
		}
		if err := r.Client.Delete(ctx, cm, client.Preconditions{UID: ptr.To(cm.UID)}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting the ConfigMap copy %s/%s: %w", namespace, cm.Name, err)
		}
	}
	return nil
}

// ensureVolumes creates the reference dataset's PVC, then its PV bound to
// that PVC, on the referenced Dataset's FUSE mount: the referenced PV's
// CSI attributes (fluid_path, mount type, FUSE label, runtime, clean
// policy), with the reference's sub-path below the referenced one. A
// reference to a read-only Dataset is read-only (ReadOnlyMany). A PV that
// points elsewhere (the referenced Dataset was replaced), or has the
// earlier name of dataset PVs (volume.Names), is replaced once no Pod
// uses it.
func (r *Reconciler) ensureVolumes(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	tpv, err := r.targetPV(ctx, s.target)
	if err != nil {
		return ctrl.Result{}, false, err
	} else if tpv == nil {
		v := no(ReasonReferencedDatasetNotBound, "the PV %s of Dataset %s does not exist", volume.Name(s.target), s.ref.Key())
		s.obs.set(ConditionReferenceAvailable, v)
		return ctrl.Result{RequeueAfter: waitDataset}, false, r.markNotBound(ctx, s.ds, *v)
	}
	modes := volume.AccessModes(s.ds)
	if slices.Contains(tpv.Spec.AccessModes, corev1.ReadOnlyMany) {
		modes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany}
	}
	pvc, err := volume.PVC(s.ds)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	pvc.Spec.AccessModes = modes
	if err := volume.CreateIfMissing(ctx, r.Client, pvc); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("creating PVC %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	if !volume.Owns(s.ds, pvc) {
		s.obs.set(ConditionVolumeBound, no(ReasonVolumeConflict, "PVC %s/%s exists and was not created by Sluice for Dataset %s/%s: rename or delete that PVC",
			pvc.Namespace, pvc.Name, s.ds.Namespace, s.ds.Name))
		return ctrl.Result{RequeueAfter: waitDataset}, false, nil
	}
	pv, err := volume.PV(s.ds, volume.Spec{ClaimUID: pvc.UID, AccessModes: modes, Name: volume.ClaimedName(s.ds, pvc)})
	if err != nil {
		return ctrl.Result{}, false, err
	}
	attrs := maps.Clone(tpv.Spec.CSI.VolumeAttributes)
	attrs[datav1alpha1.VolumeAttrSubPath] = joinSubPath(attrs[datav1alpha1.VolumeAttrSubPath], s.ref.SubPath)
	pv.Spec.CSI.VolumeAttributes = attrs
	pv.Spec.NodeAffinity = tpv.Spec.NodeAffinity.DeepCopy()
	if err := volume.CreateIfMissing(ctx, r.Client, pv); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("creating PV %s: %w", pv.Name, err)
	}
	if !volume.Owns(s.ds, pv) {
		s.obs.set(ConditionVolumeBound, no(ReasonVolumeConflict, "PV %s exists and was not created by Sluice for Dataset %s/%s: delete it, or rename the Dataset",
			pv.Name, s.ds.Namespace, s.ds.Name))
		return ctrl.Result{RequeueAfter: waitDataset}, false, nil
	}
	if pv.Spec.CSI == nil || !maps.Equal(pv.Spec.CSI.VolumeAttributes, attrs) {
		return r.replaceVolumes(ctx, s, pvc, pv, fmt.Sprintf("PV %s points at another FUSE mount than Dataset %s's; it is replaced", pv.Name, s.ref.Key()))
	}
	if pv.Name != volume.Name(s.ds) {
		return r.renameVolumes(ctx, s, pvc, pv)
	}
	return ctrl.Result{}, true, nil
}

// replaceVolumes deletes an out-of-date PVC and PV once no Pod uses the
// reference dataset (the next reconcile creates them again), and reports
// VolumeOutOfDate meanwhile.
func (r *Reconciler) replaceVolumes(ctx context.Context, s *scope, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, msg string) (ctrl.Result, bool, error) {
	users, err := volume.Users(ctx, r.Client, r.Live, s.ds.Namespace, s.ds.Name)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	return r.replaceUnused(ctx, s, pvc, pv, users, msg)
}

// replaceUnused is replaceVolumes with the reference dataset's users known.
func (r *Reconciler) replaceUnused(ctx context.Context, s *scope, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, users []string, msg string) (ctrl.Result, bool, error) {
	if len(users) > 0 {
		msg += " once no Pod uses it: " + fmt.Sprint(users)
	} else {
		for _, obj := range []client.Object{pvc, pv} {
			if err := r.Client.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, false, err
			}
		}
	}
	s.obs.set(ConditionVolumeBound, no(ReasonVolumeOutOfDate, "%s", msg))
	return ctrl.Result{RequeueAfter: waitDataset}, false, nil
}

// joinSubPath is the sub-path sub below the referenced PV's base.
func joinSubPath(base, sub string) string {
	switch {
	case sub == "":
		return base
	case base == "":
		return sub
	}
	return path.Join(base, sub)
}
