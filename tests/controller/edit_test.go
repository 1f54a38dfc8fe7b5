package controller_test

import (
	"testing"

	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// edit changes obj (read afresh from the API server) and updates it,
// retrying on conflicts: the controllers write the same objects (status,
// finalizers) while a test edits their spec.
func edit[T client.Object](t *testing.T, obj T, change func(T)) {
	t.Helper()
	ctx := testenv.Context(t)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change(obj)
		return env.Client.Update(ctx, obj)
	}); err != nil {
		t.Fatal(err)
	}
}
