package e2e_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestTwoRequiredDatasetsCachedOnDifferentNodes: two JuiceFS Datasets,
// each cached by one worker on its own node, and a reader labelled
// fluid.io/dataset.<name>.sched=required for both. As in Fluid (one
// required term per dataset, OR-ed), kube-scheduler places the reader on
// a node caching one of them, where no node caches both; the third node,
// which caches neither, is never chosen.
func TestTwoRequiredDatasetsCachedOnDifferentNodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := cluster.Client
	defer func() {
		if t.Failed() {
			t.Log(cluster.Logs(15))
		}
	}()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-sched-"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	// Dataset alpha is cached on nodes[0] only, bravo on nodes[1] only
	// (a JuiceFS volume name has at least 3 characters).
	pinned := map[string]string{"alpha": nodes[0], "bravo": nodes[1]}
	cacheKeys := map[string]string{}
	var runtimes []*datav1alpha1.JuiceFSRuntime
	for _, name := range []string{"alpha", "bravo"} {
		ds := testobj.Dataset(name, ns.Name, testobj.WithMounts("juicefs:///"+name))
		ds.Spec.NodeAffinity = &datav1alpha1.CacheableNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{pinned[name]}}}}}}}
		if err := c.Create(ctx, ds); err != nil {
			t.Fatal(err)
		}
		rt := testobj.JuiceFSRuntime(name, ns.Name, 1, testobj.Level(datav1alpha1.SSD, "/var/jfsCache", "10Gi"))
		if err := c.Create(ctx, rt); err != nil {
			t.Fatal(err)
		}
		runtimes = append(runtimes, rt)
		cacheKeys[name] = datav1alpha1.KeyOf(ds).CacheLabelKey()
	}
	for _, name := range []string{"alpha", "bravo"} {
		key := types.NamespacedName{Namespace: ns.Name, Name: name}
		waitFor(ctx, t, "Dataset "+name+" Bound, its worker Ready on the labelled node "+pinned[name], func() (bool, error) {
			ds := &datav1alpha1.Dataset{}
			if err := c.Get(ctx, key, ds); err != nil || ds.Status.Phase != datav1alpha1.BoundDatasetPhase {
				return false, err
			}
			running, labelled, err := workersAndLabels(ctx, c, key, cacheKeys[name])
			want := []string{pinned[name]}
			return slices.Equal(running, want) && slices.Equal(labelled, want), err
		})
	}

	reader := readerPod(ns.Name, "reader", "alpha", map[string]string{
		datav1alpha1.LabelServerfulInject:          "true",
		datav1alpha1.DatasetSchedLabelKey("alpha"): datav1alpha1.SchedRequired,
		datav1alpha1.DatasetSchedLabelKey("bravo"): datav1alpha1.SchedRequired,
	})
	reader.Spec.Volumes = append(reader.Spec.Volumes, corev1.Volume{Name: "bravo", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "bravo"}}})
	reader.Spec.Containers[0].VolumeMounts = append(reader.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "bravo", MountPath: "/bravo"})
	if err := c.Create(ctx, reader); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "kube-scheduler to place the reader and kwok to run it", func() (bool, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(reader), reader)
		return err == nil && reader.Status.Phase == corev1.PodRunning, err
	})
	if reader.Spec.NodeName != nodes[0] && reader.Spec.NodeName != nodes[1] {
		t.Errorf("the reader runs on %s, which caches neither dataset (alpha on %s, bravo on %s)", reader.Spec.NodeName, nodes[0], nodes[1])
	}
	var keys []string
	for _, term := range reader.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if len(term.MatchExpressions) != 1 {
			t.Fatalf("a required term with %d requirements, want one per dataset: %+v", len(term.MatchExpressions), term)
		}
		keys = append(keys, term.MatchExpressions[0].Key)
	}
	if want := []string{cacheKeys["alpha"], cacheKeys["bravo"]}; !slices.Equal(keys, want) {
		t.Errorf("the reader's required terms are on %v, want one term each on %v", keys, want)
	}

	if err := c.Delete(ctx, reader, client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	for _, rt := range runtimes {
		if err := c.Delete(ctx, rt); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(ctx, t, "the runtimes to be cleaned up", func() (bool, error) {
		for _, rt := range runtimes {
			if err := c.Get(ctx, client.ObjectKeyFromObject(rt), &datav1alpha1.JuiceFSRuntime{}); !apierrors.IsNotFound(err) {
				return false, client.IgnoreNotFound(err)
			}
		}
		return true, nil
	})
}
