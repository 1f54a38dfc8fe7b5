package dataset

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// thinType is the runtime type of the ThinRuntime that serves a reference
// dataset (controller/reference).
const thinType = "thin"

// ensureReferenceRuntime creates, for a reference dataset without a
// runtime of its name, the ThinRuntime that serves it (no
// spec.profileName), as Fluid's dataset controller does: labelled with the
// Dataset and owned by it, so that it goes with the Dataset even if the
// Dataset's own deletion is cut short. A runtime of its name that exists,
// of any kind, is left alone (one of another kind is refused at admission
// and reports why).
func (r *Reconciler) ensureReferenceRuntime(ctx context.Context, ds *datav1alpha1.Dataset) error {
	if _, isRef, err := datav1alpha1.ReferenceOf(ds); !isRef || err != nil || !ds.DeletionTimestamp.IsZero() {
		return nil
	}
	newThin, ok := r.RuntimeKinds[thinType]
	if !ok {
		return nil
	}
	key := client.ObjectKeyFromObject(ds)
	for _, newObj := range r.RuntimeKinds {
		switch err := r.Client.Get(ctx, key, newObj()); {
		case err == nil:
			return nil
		case !apierrors.IsNotFound(err):
			return err
		}
	}
	rt := newThin()
	rt.SetNamespace(ds.Namespace)
	rt.SetName(ds.Name)
	rt.SetLabels(map[string]string{datav1alpha1.LabelDatasetID: datav1alpha1.KeyOf(ds).DatasetID()})
	if err := controllerutil.SetControllerReference(ds, rt, r.Client.Scheme()); err != nil {
		return err
	}
	switch err := r.Client.Create(ctx, rt); {
	case apierrors.IsAlreadyExists(err):
		return nil
	case err != nil:
		return fmt.Errorf("creating the ThinRuntime of reference dataset %s: %w", key, err)
	}
	ctrl.LoggerFrom(ctx).Info("created the reference dataset's ThinRuntime")
	r.event(ds, corev1.EventTypeNormal, "RuntimeCreated", "Create", "created ThinRuntime %s, which serves the reference dataset from the cache of the Dataset it mounts", ds.Name)
	return nil
}

// liveReferences are the reference datasets the Dataset's status.datasetRef
// lists that still exist (the Dataset or its ThinRuntime): an entry whose
// reference dataset and runtime are both gone (their cleanup cut short)
// is removed from status.datasetRef, so that it holds no deletion for ever.
func (r *Reconciler) liveReferences(ctx context.Context, ds *datav1alpha1.Dataset) ([]string, error) {
	var stale []string
	for _, ref := range ds.Status.DatasetRef {
		ns, name, ok := strings.Cut(ref, "/")
		if !ok || ns == "" || name == "" {
			stale = append(stale, ref)
			continue
		}
		exists, err := r.referenceExists(ctx, types.NamespacedName{Namespace: ns, Name: name})
		if err != nil {
			return nil, err
		}
		if !exists {
			stale = append(stale, ref)
		}
	}
	if len(stale) == 0 {
		return ds.Status.DatasetRef, nil
	}
	ctrl.LoggerFrom(ctx).Info("forgetting reference datasets that are gone", "datasetRef", stale)
	if _, err := r.write(ctx, ds, status, func(d *datav1alpha1.Dataset) bool {
		before := len(d.Status.DatasetRef)
		d.Status.DatasetRef = slices.DeleteFunc(d.Status.DatasetRef, func(ref string) bool { return slices.Contains(stale, ref) })
		return len(d.Status.DatasetRef) != before
	}); err != nil {
		return nil, fmt.Errorf("forgetting reference datasets that are gone: %w", err)
	}
	return ds.Status.DatasetRef, nil
}

// referenceExists says whether the reference dataset key or its
// ThinRuntime exists, asking the API server before saying no.
func (r *Reconciler) referenceExists(ctx context.Context, key types.NamespacedName) (bool, error) {
	objs := []client.Object{&datav1alpha1.Dataset{}}
	if newThin, ok := r.RuntimeKinds[thinType]; ok {
		objs = append(objs, newThin())
	}
	for _, rd := range []client.Reader{r.Client, r.reader()} {
		for _, obj := range objs {
			switch err := rd.Get(ctx, key, obj); {
			case err == nil:
				return true, nil
			case !apierrors.IsNotFound(err):
				return false, err
			}
		}
	}
	return false, nil
}
