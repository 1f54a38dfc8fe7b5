package cacheruntime

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// laggingCache is a cache that has not yet seen any Dataset: the Dataset
// and its runtime come from different informers, in either order.
type laggingCache struct{ client.Client }

func (c laggingCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*datav1alpha1.Dataset); ok {
		return apierrors.NewNotFound(schema.GroupResource{Group: datav1alpha1.GroupVersion.Group, Resource: "datasets"}, key.Name)
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func TestRuntimeDoesNotWaitForADatasetTheCacheHasNotSeen(t *testing.T) {
	ctx := context.Background()
	r, api, req := thinFixture(t, "", "")
	r.Client, r.Live = laggingCache{api}, api
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	hc, _ := r.Helm("n")
	if rel, err := hc.Latest("d"); err != nil || rel == nil {
		t.Fatalf("release after the first reconcile: %v, %v (the runtime waited for the cache)", rel, err)
	}

	// Without an uncached reader, the runtime can only wait for the cache.
	r, api, req = thinFixture(t, "", "")
	r.Client = laggingCache{api}
	res, err := r.Reconcile(ctx, req)
	rt := &datav1alpha1.ThinRuntime{}
	if err != nil || api.Get(ctx, req.NamespacedName, rt) != nil || reasonOf(rt) != ReasonDatasetNotFound || res.RequeueAfter == 0 {
		t.Fatalf("cache only: %+v %v, reason %q", res, err, reasonOf(rt))
	}
}

// reasonOf is the reason of a runtime's Ready condition.
func reasonOf(rt *datav1alpha1.ThinRuntime) string {
	if c := meta.FindStatusCondition(rt.Status.Conditions, ConditionReady); c != nil {
		return c.Reason
	}
	return ""
}
