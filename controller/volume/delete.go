package volume

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// DeleteOwned deletes obj (named, of its kind) if it is the volume Sluice
// created for ds (Owns, as read, and by that UID), and leaves anything
// else of its name alone. c is the cached client; a volume the cache does
// not hold is looked up through live (the API server), when given: the
// cache can lag behind a create, and a deletion decided on "not there"
// would leave the volume behind for good once the finalizer goes.
func DeleteOwned(ctx context.Context, c client.Client, live client.Reader, ds *datav1alpha1.Dataset, obj client.Object) error {
	key := client.ObjectKeyFromObject(obj)
	err := c.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) && live != nil {
		err = live.Get(ctx, key, obj)
	}
	if err != nil {
		return client.IgnoreNotFound(err)
	}
	if !Owns(ds, obj) {
		return nil
	}
	return client.IgnoreNotFound(c.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}))
}

// DeleteDatasetVolumes deletes the PVC and PV (under each of Names) that
// Sluice created for the Dataset named ns/name (DeleteOwned): they are
// named after it, so they go even when the Dataset is gone already.
func DeleteDatasetVolumes(ctx context.Context, c client.Client, live client.Reader, ns, name string) error {
	named := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	objs := []client.Object{&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}}
	for _, pv := range Names(named) {
		objs = append(objs, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pv}})
	}
	for _, obj := range objs {
		if err := DeleteOwned(ctx, c, live, named, obj); err != nil {
			return err
		}
	}
	return nil
}
