package optional

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Get reads one object into obj and reports whether it exists; a missing
// object is not an error, any other failure names the object.
func Get(ctx context.Context, r client.Reader, key types.NamespacedName, obj client.Object) (bool, error) {
	if err := r.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading %T %s: %w", obj, key, err)
	}
	return true, nil
}
