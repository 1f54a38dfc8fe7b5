package e2e_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestJuiceFSOnSimulatedCluster applies a Dataset and a JuiceFSRuntime and
// follows them on the simulated cluster: the chart's worker pod is created
// by the StatefulSet controller, bound by the scheduler and made Ready by
// kwok; the Dataset becomes Bound with its PV and PVC, and the worker's node
// carries the cache labels. Scaling to 2 (scale subresource) and back
// moves the labels; deleting the runtime cleans everything up.
func TestJuiceFSOnSimulatedCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := cluster.Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			t.Log(cluster.Logs(15))
		}
	}()
	key := types.NamespacedName{Namespace: ns.Name, Name: "imagenet"}
	ds := testobj.Dataset(key.Name, key.Namespace, testobj.WithMounts("juicefs:///imagenet"))
	if err := c.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime(key.Name, key.Namespace, 1, testobj.Level(datav1alpha1.SSD, "/var/jfsCache", "10Gi"))
	if err := c.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}

	waitFor(ctx, t, "the Dataset to be Bound", func() (bool, error) {
		if err := c.Get(ctx, key, ds); err != nil {
			return false, err
		}
		return ds.Status.Phase == datav1alpha1.BoundDatasetPhase, nil
	})
	for _, obj := range []client.Object{&corev1.PersistentVolumeClaim{}, &appsv1.StatefulSet{}} {
		name := key
		if _, ok := obj.(*appsv1.StatefulSet); ok {
			name.Name += "-worker"
		}
		if err := c.Get(ctx, name, obj); err != nil {
			t.Fatalf("%T %s: %v", obj, name, err)
		}
	}
	pvKey := types.NamespacedName{Name: pvName(key.Namespace, key.Name)}
	if err := c.Get(ctx, pvKey, &corev1.PersistentVolume{}); err != nil {
		t.Fatalf("PV %s: %v", pvKey.Name, err)
	}
	cacheKey := datav1alpha1.KeyOf(ds).CacheLabelKey()
	scheduled := func(want int) {
		t.Helper()
		waitFor(ctx, t, fmt.Sprintf("%d ready workers on %d labelled nodes", want, want), func() (bool, error) {
			running, labelled, err := workersAndLabels(ctx, c, key, cacheKey)
			if err != nil {
				return false, err
			}
			return len(running) == want && strings.Join(running, ",") == strings.Join(labelled, ","), nil
		})
	}
	scheduled(1)

	// Scale out through the scale subresource, as kubectl scale and HPAs do.
	scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 2}}
	if err := c.SubResource("scale").Update(ctx, rt, client.WithSubResourceBody(scale)); err != nil {
		t.Fatal(err)
	}
	scheduled(2)
	waitFor(ctx, t, "the scale subresource to report 2 workers", func() (bool, error) {
		s := &autoscalingv1.Scale{}
		if err := c.SubResource("scale").Get(ctx, rt, s); err != nil {
			return false, err
		}
		return s.Status.Replicas == 2, nil
	})

	// The controller writes the runtime too (status, finalizer): retry on
	// conflicts.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, key, rt); err != nil {
			return err
		}
		rt.Spec.Replicas = 1
		return c.Update(ctx, rt)
	}); err != nil {
		t.Fatal(err)
	}
	scheduled(1)

	if err := c.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the runtime, its release, volumes and labels to be gone", func() (bool, error) {
		for _, obj := range []struct {
			key types.NamespacedName
			obj client.Object
		}{{key, &datav1alpha1.JuiceFSRuntime{}}, {key, &corev1.PersistentVolumeClaim{}}, {pvKey, &corev1.PersistentVolume{}},
			{types.NamespacedName{Namespace: key.Namespace, Name: key.Name + "-worker"}, &appsv1.StatefulSet{}}} {
			if err := c.Get(ctx, obj.key, obj.obj); !apierrors.IsNotFound(err) {
				return false, client.IgnoreNotFound(err)
			}
		}
		labelled := &corev1.NodeList{}
		if err := c.List(ctx, labelled, client.HasLabels{cacheKey}); err != nil || len(labelled.Items) > 0 {
			return false, err
		}
		return true, c.Get(ctx, key, ds)
	})
	if ds.Status.Phase != datav1alpha1.NotBoundDatasetPhase {
		t.Errorf("Dataset phase after the runtime's deletion: %q", ds.Status.Phase)
	}
}

// workersAndLabels returns the nodes running a Ready worker of the runtime
// and the nodes carrying the Dataset's cache label, each sorted.
func workersAndLabels(ctx context.Context, c client.Client, key types.NamespacedName, cacheKey string) (running, labelled []string, err error) {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingLabels{"app.kubernetes.io/instance": key.Name, "role": "juicefs-worker"}); err != nil {
		return nil, nil, err
	}
	for _, p := range pods.Items {
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
				running = append(running, p.Spec.NodeName)
			}
		}
	}
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes, client.MatchingLabels{cacheKey: "true"}); err != nil {
		return nil, nil, err
	}
	for _, n := range nodes.Items {
		labelled = append(labelled, n.Name)
	}
	sort.Strings(running)
	sort.Strings(labelled)
	return running, labelled, nil
}

// waitFor polls cond every 250ms until it holds, failing the test (with
// what was awaited) when ctx ends or the simulated cluster breaks.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	start := time.Now()
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(context.Context) (bool, error) {
		if err := cluster.Check(); err != nil {
			return false, err
		}
		return cond()
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
	t.Logf("%s after %s", what, time.Since(start).Round(10*time.Millisecond))
}

// pvName is the PV name Sluice gives Dataset ns/name (volume.Name).
func pvName(ns, name string) string {
	return volume.Name(&datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
}
