package volume

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CreateIfMissing creates obj (a dataset's PV or PVC) unless c, a cached
// client, already holds it; obj is then the object as stored (when the
// cache lags behind a create, it is left as given).
func CreateIfMissing(ctx context.Context, c client.Client, obj client.Object) error {
	switch err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); {
	case err == nil:
		return nil
	case !apierrors.IsNotFound(err):
		return err
	}
	if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
