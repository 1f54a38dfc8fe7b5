package claimrelease

import (
	"context"
	"fmt"
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

// TestReleaseTrustsAHolderTheCacheShowsRunning: while the cache shows the
// holding operation running, its changes cost no read of the API server
// (neither the Dataset nor the operation); once the cache shows it
// finished, both are read live and the holder released.
func TestReleaseTrustsAHolderTheCacheShowsRunning(t *testing.T) {
	ctx := context.Background()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"},
		Status: datav1alpha1.DatasetStatus{OperationRef: map[string]string{"DataLoad": "warm"}}}
	dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Name: "warm", Namespace: "n"},
		Status: datav1alpha1.OperationStatus{Phase: datav1alpha1.PhaseExecuting}}
	api := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithStatusSubresource(&datav1alpha1.Dataset{}, &datav1alpha1.DataLoad{}).
		WithObjects(ds, dl).Build()
	var liveReads []string
	live := interceptor.NewClient(api, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			liveReads = append(liveReads, fmt.Sprintf("%T %s", obj, k.Name))
			return c.Get(ctx, k, obj, opts...)
		},
	})
	r := &ReleaseReconciler{Client: live, Cache: api}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ds)}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if len(liveReads) > 0 {
		t.Fatalf("live reads %v while the cache shows the holder Executing; want none", liveReads)
	}

	dl.Status.Phase = datav1alpha1.PhaseComplete
	if err := api.Status().Update(ctx, dl); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if len(liveReads) != 2 {
		t.Errorf("live reads %v once the holder finished; want the Dataset and the DataLoad", liveReads)
	}
	got := &datav1alpha1.Dataset{}
	if err := api.Get(ctx, req.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.OperationRef) != 0 {
		t.Errorf("the finished holder was not released: %v", got.Status.OperationRef)
	}
}
