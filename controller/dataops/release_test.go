package dataops

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestReleaseReadsLiveOnlyWhenHeld: a Dataset that the cache shows without
// holders costs no read of the API server; one with a holder is read live
// and its stale holder (an operation that was never stored) released.
func TestReleaseReadsLiveOnlyWhenHeld(t *testing.T) {
	ctx := context.Background()
	free := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "free", Namespace: "n"}}
	held := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "n"},
		Status: datav1alpha1.DatasetStatus{OperationRef: map[string]string{"DataLoad": "gone"}}}
	api := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithStatusSubresource(&datav1alpha1.Dataset{}).WithObjects(free, held).Build()
	liveReads := 0
	live := interceptor.NewClient(api, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*datav1alpha1.Dataset); ok {
				liveReads++
			}
			return c.Get(ctx, k, obj, opts...)
		},
	})
	r := &ReleaseReconciler{Client: live, Cache: api}
	for _, name := range []string{"free", "held", "missing"} {
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "n", Name: name}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if liveReads != 1 {
		t.Errorf("%d live reads of Datasets, want 1 (the held one)", liveReads)
	}
	got := &datav1alpha1.Dataset{}
	if err := api.Get(ctx, client.ObjectKeyFromObject(held), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.OperationRef) != 0 {
		t.Errorf("the never-stored holder was not released: %v", got.Status.OperationRef)
	}
}
