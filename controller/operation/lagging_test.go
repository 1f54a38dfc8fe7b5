package operation

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
)

// frozenCache reads operations from a snapshot, as an informer cache that
// has not yet seen the controller's last writes does; everything else goes
// to the API server.
type frozenCache struct {
	client.Client
	snapshot map[types.NamespacedName]client.Object
}

func (c frozenCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if old, ok := c.snapshot[key]; ok {
		if dl, ok := obj.(*datav1alpha1.DataLoad); ok {
			old.(*datav1alpha1.DataLoad).DeepCopyInto(dl)
			return nil
		}
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// countingClient counts the requests sent through it.
type countingClient struct {
	client.Client
	mu    sync.Mutex
	calls []string
}

func (c *countingClient) count(call string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, call)
}

func (c *countingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.count("get " + key.Name)
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.count("update " + obj.GetName())
	return c.Client.Update(ctx, obj, opts...)
}

func (c *countingClient) Status() client.SubResourceWriter {
	c.count("status")
	return c.Client.Status()
}

// TestReconcileBehindItsOwnWriteWaits: a reconcile that reads, from a cache
// behind it, the version of an operation that this reconciler's last write
// replaced acts on nothing: it sends no request (it would claim, install
// and write from stale observations, then find its status write refused)
// and looks again shortly, the cache's update waking it first.
func TestReconcileBehindItsOwnWriteWaits(t *testing.T) {
	ctx := ctrl.LoggerInto(context.Background(), ctrl.Log)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "x"},
		Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "d"}}}
	api := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(dl).WithStatusSubresource(&datav1alpha1.DataLoad{}).Build()
	key := client.ObjectKeyFromObject(dl)
	before := &datav1alpha1.DataLoad{}
	if err := api.Get(ctx, key, before); err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Kind: datav1alpha1.DataLoadKind, Client: api, Live: api, Conflicts: claim.Fixed{}, now: func() time.Time { return now }}
	req := ctrl.Request{NamespacedName: key}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	after := &datav1alpha1.DataLoad{}
	if err := api.Get(ctx, key, after); err != nil {
		t.Fatal(err)
	}
	if after.Status.Phase != datav1alpha1.PhasePending || len(after.Finalizers) != 1 {
		t.Fatalf("after the first reconcile: phase %q, finalizers %v; want Pending with the finalizer", after.Status.Phase, after.Finalizers)
	}

	// The cache still shows the operation as it was before those writes.
	sent := &countingClient{Client: api}
	r.Client, r.Live = frozenCache{Client: sent, snapshot: map[types.NamespacedName]client.Object{key: before}}, sent
	res, err := r.Reconcile(ctx, req)
	if err != nil || len(sent.calls) > 0 || res.RequeueAfter <= 0 {
		t.Fatalf("a reconcile reading the version its own write replaced: result %+v, error %v, requests %v; want none, and a requeue", res, err, sent.calls)
	}

	// Once the cache shows the written version, reconciles act again.
	r.Client = api
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatalf("a reconcile reading the current version: %v", err)
	}
}
