package volume

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CreateIfMissing creates obj (a dataset's PV or PVC) unless c, a cached
// client, already holds it; obj is then the object as stored. When the
// API server holds it but the cache does not show it yet (an earlier
// attempt's create took effect, its answer lost), it returns an error, so
// that the reconcile is retried with the stored object: obj as given has
// neither its UID nor its owner's marks, and the ownership check and the
// PV's claimRef that follow must not take it for the stored one.
func CreateIfMissing(ctx context.Context, c client.Client, obj client.Object) error {
	switch err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); {
	case err == nil:
		return nil
	case !apierrors.IsNotFound(err):
		return err
	}
	err := c.Create(ctx, obj)
	if apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("%s exists, but the cache does not show it yet: %w", client.ObjectKeyFromObject(obj), err)
	}
	return err
}
