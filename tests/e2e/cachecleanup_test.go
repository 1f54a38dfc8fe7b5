package e2e_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// boundJuiceFS creates a Dataset and a JuiceFSRuntime of two workers
// caching in the hostPath /var/jfsCache in a new namespace, waits until
// the Dataset is Bound and returns the namespace, the runtime and the
// nodes of its ready workers.
func boundJuiceFS(ctx context.Context, t *testing.T, policy datav1alpha1.CleanCachePolicy) (string, *datav1alpha1.JuiceFSRuntime, []string) {
	t.Helper()
	c := cluster.Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns.Name, Name: "imagenet"}
	ds := testobj.Dataset(key.Name, key.Namespace, testobj.WithMounts("juicefs:///imagenet"))
	if err := c.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime(key.Name, key.Namespace, 2, testobj.Level(datav1alpha1.SSD, "/var/jfsCache", "10Gi"))
	rt.Spec.Management.CleanCachePolicy = policy
	if err := c.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the Dataset to be Bound", func() (bool, error) {
		if err := c.Get(ctx, key, ds); err != nil {
			return false, err
		}
		return ds.Status.Phase == datav1alpha1.BoundDatasetPhase, nil
	})
	var running []string
	waitFor(ctx, t, "2 ready workers", func() (bool, error) {
		var err error
		running, _, err = workersAndLabels(ctx, c, key, datav1alpha1.KeyOf(ds).CacheLabelKey())
		return len(running) == 2, err
	})
	return ns.Name, rt, slices.Compact(running)
}

// runtimeEventNotes are the notes of the events about the JuiceFSRuntime,
// one "<type> <reason>: <note>" line each.
func runtimeEventNotes(ctx context.Context, t *testing.T, ns, name string) string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := cluster.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range list.Items {
		if e.Regarding.Kind == "JuiceFSRuntime" && e.Regarding.Name == name {
			fmt.Fprintf(&b, "%s %s: %s\n", e.Type, e.Reason, e.Note)
		}
	}
	return b.String()
}

// deleteAndWatchCleanup deletes the runtime and follows its deletion until
// the runtime is gone, returning the nodes the cleanup Jobs it saw were
// pinned to.
func deleteAndWatchCleanup(ctx context.Context, t *testing.T, rt *datav1alpha1.JuiceFSRuntime) []string {
	t.Helper()
	c := cluster.Client
	if err := c.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	waitFor(ctx, t, "the runtime's deletion, through its cache cleanup, to complete", func() (bool, error) {
		jobs := &batchv1.JobList{}
		if err := c.List(ctx, jobs, client.InNamespace(rt.Namespace), client.MatchingLabels{cachecleanup.LabelRuntime: rt.Name, cachecleanup.LabelStep: "node"}); err != nil {
			return false, err
		}
		for _, j := range jobs.Items {
			seen[j.Spec.Template.Spec.NodeName] = true
		}
		err := c.Get(ctx, client.ObjectKeyFromObject(rt), &datav1alpha1.JuiceFSRuntime{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	jobs := &batchv1.JobList{}
	if err := c.List(ctx, jobs, client.InNamespace(rt.Namespace), client.MatchingLabels{cachecleanup.LabelRuntime: rt.Name}); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 0 {
		t.Errorf("%d cleanup Jobs left after the deletion", len(jobs.Items))
	}
	return slices.Sorted(maps.Keys(seen))
}

// TestDeletedRuntimeCleansItsCacheOnItsWorkersNodes (R19) on the
// simulated cluster: the workers' pods, created by the StatefulSet
// controller, placed by kube-scheduler and run by kwok, mounted the
// runtime's directory below the hostPath tier; deleting the runtime runs
// a cleanup Job on exactly their nodes (the Job controller creates the
// pods, kwok completes them), then the deletion completes, reporting what
// was removed where.
func TestDeletedRuntimeCleansItsCacheOnItsWorkersNodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	defer func() {
		if t.Failed() {
			t.Log(cluster.Logs(15))
		}
	}()
	ns, rt, workers := boundJuiceFS(ctx, t, datav1alpha1.CleanCachePolicy{})
	cleaned := deleteAndWatchCleanup(ctx, t, rt)
	if !slices.Equal(cleaned, workers) {
		t.Errorf("cleanup Jobs on %v, want the workers' nodes %v", cleaned, workers)
	}
	events := runtimeEventNotes(ctx, t, ns, rt.Name)
	if want := "Normal CacheCleaned: removed the cache directories on nodes " + strings.Join(workers, ", "); !strings.Contains(events, want) {
		t.Errorf("events:\n%s\nwant %q", events, want)
	}
}

// TestCacheCleanupThatNeverRunsIsGivenUp (R19) on the simulated cluster:
// a quota leaves the namespace no room for the cleanup pods, so the node
// Jobs never run; with gracePeriodSeconds 2 and maxRetryAttempts 0 the Job
// controller fails each Job at its deadline, and the deletion completes
// with a Warning naming every node and the Job's error.
func TestCacheCleanupThatNeverRunsIsGivenUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	defer func() {
		if t.Failed() {
			t.Log(cluster.Logs(15))
		}
	}()
	ns, rt, workers := boundJuiceFS(ctx, t, datav1alpha1.CleanCachePolicy{GracePeriodSeconds: ptr.To[int32](2), MaxRetryAttempts: ptr.To[int32](0)})
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-more-pods"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}}}
	if err := cluster.Client.Create(ctx, quota); err != nil {
		t.Fatal(err)
	}
	cleaned := deleteAndWatchCleanup(ctx, t, rt)
	if !slices.Equal(cleaned, workers) {
		t.Errorf("cleanup Jobs on %v, want the workers' nodes %v", cleaned, workers)
	}
	events := runtimeEventNotes(ctx, t, ns, rt.Name)
	want := []string{"Warning CleanupFailed: the cache cleanup gave up, the deletion goes on: "}
	for _, n := range workers {
		want = append(want, "node "+n+": Job "+cachecleanup.ReleaseName(rt.Name))
	}
	want = append(want, "failed (DeadlineExceeded: ")
	for _, w := range want {
		if !strings.Contains(events, w) {
			t.Errorf("events:\n%s\nwant %q", events, w)
		}
	}
	ds := &datav1alpha1.Dataset{}
	if err := cluster.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: rt.Name}, ds); err != nil || ds.Status.Phase != datav1alpha1.NotBoundDatasetPhase {
		t.Errorf("Dataset after the deletion: %v, phase %q", err, ds.Status.Phase)
	}
}
