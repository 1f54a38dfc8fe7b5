package dataset

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestTheDatasetOutlivesItsRuntimesCleanup: the runtime's cleanup has
// returned the Dataset to NotBound (status.runtimes empty) but not yet
// released its own finalizer; the Dataset keeps its finalizer until the
// runtime is gone.
func TestTheDatasetOutlivesItsRuntimesCleanup(t *testing.T) {
	ctx := context.Background()
	now := metav1.Now()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", DeletionTimestamp: &now, Finalizers: []string{Finalizer}}}
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", DeletionTimestamp: &now, Finalizers: []string{"data.sluice.io/runtime"}}}
	c := fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(ds, rt).WithStatusSubresource(&datav1alpha1.Dataset{}).Build()
	r := &Reconciler{Client: c, Events: events.NewFakeRecorder(10), RuntimeKinds: map[string]func() datav1alpha1.RuntimeObject{
		"juicefs": func() datav1alpha1.RuntimeObject { return &datav1alpha1.JuiceFSRuntime{} },
		"alluxio": func() datav1alpha1.RuntimeObject { return &datav1alpha1.AlluxioRuntime{} },
	}}
	reconcile := func() {
		t.Helper()
		got := &datav1alpha1.Dataset{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(ds), got); err != nil {
			t.Fatal(err)
		}
		if _, err := r.reconcileDelete(ctx, got); err != nil {
			t.Fatal(err)
		}
	}
	reconcile()
	got := &datav1alpha1.Dataset{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ds), got); err != nil || !controllerutil.ContainsFinalizer(got, Finalizer) {
		t.Fatalf("while the runtime's cleanup runs: %v, finalizers %v; want the Dataset kept", err, got.Finalizers)
	}

	// The runtime releases its finalizer and goes; then the Dataset.
	controllerutil.RemoveFinalizer(rt, "data.sluice.io/runtime")
	if err := c.Update(ctx, rt); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if err := c.Get(ctx, client.ObjectKeyFromObject(ds), got); !apierrors.IsNotFound(err) {
		t.Fatalf("after the runtime went: %v, finalizers %v; want the Dataset gone", err, got.Finalizers)
	}
}
