package cacheruntime

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/fake"
)

// TestPatchNodeWithLaggingCache labels one node for three Datasets while the
// cache shows the node as it was before: the node as this controller last
// wrote it is the base of the next change (no conflict, no extra read);
// without it, the conflict the stale base causes is resolved by a fresh
// read. dataset-num counts all three either way.
func TestPatchNodeWithLaggingCache(t *testing.T) {
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{"kubernetes.io/hostname": "node-a"}}}
	api := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(node).Build()
	var cached *corev1.Node
	patches, conflicts, reads := 0, 0, 0
	c := interceptor.NewClient(api, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if n, ok := obj.(*corev1.Node); ok && cached != nil {
				cached.DeepCopyInto(n)
				return nil
			}
			return c.Get(ctx, k, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			patches++
			err := c.Patch(ctx, obj, patch, opts...)
			if apierrors.IsConflict(err) {
				conflicts++
			}
			return err
		},
	})
	live := interceptor.NewClient(api, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			reads++
			return c.Get(ctx, k, obj, opts...)
		},
	})
	r := &Reconciler{Client: c, Live: live, Engine: fake.Engine{}}
	label := func(name string) {
		t.Helper()
		key := datav1alpha1.DatasetKey{Namespace: "n", Name: name}
		if err := r.patchNode(ctx, "node-a", r.cacheLabels(key, nil, &datav1alpha1.AlluxioRuntime{}), true); err != nil {
			t.Fatal(err)
		}
	}

	if err := api.Get(ctx, client.ObjectKeyFromObject(node), node); err != nil {
		t.Fatal(err)
	}
	cached = node.DeepCopy() // from now on, the cache shows the node unlabelled
	label("a")
	label("b")
	if patches != 2 || conflicts != 0 || reads != 0 {
		t.Errorf("with the last write remembered: %d patches, %d conflicts, %d fresh reads; want 2, 0, 0", patches, conflicts, reads)
	}
	r.nodes = nodeStates{} // forget it: the stale cache is the base
	label("c")
	if patches != 4 || conflicts != 1 || reads != 1 {
		t.Errorf("from the stale cache: %d patches, %d conflicts, %d fresh reads; want 4, 1, 1", patches, conflicts, reads)
	}
	if err := api.Get(ctx, client.ObjectKeyFromObject(node), node); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if node.Labels[datav1alpha1.DatasetKey{Namespace: "n", Name: name}.CacheLabelKey()] != "true" {
			t.Errorf("dataset %s's cache label is missing: %v", name, node.Labels)
		}
	}
	if got := node.Labels[datav1alpha1.LabelDatasetNum]; got != "3" {
		t.Errorf("dataset-num = %q, want 3", got)
	}
}
