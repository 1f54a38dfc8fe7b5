package controller_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/dataset"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestBindingWriteBudget counts the controller's writes and reads in a
// Dataset's namespace from the Dataset's creation until it is Bound: they
// are what the API server, etcd and every watcher pay for each Dataset,
// and what decides how many Datasets a cluster binds per second. (The PV
// and node labels are cluster-scoped and not counted here.)
//
// It stays serial (no t.Parallel): the budget is what one binding costs
// on a controller with nothing else to do, and go test runs the serial
// tests before the parallel ones.
func TestBindingWriteBudget(t *testing.T) {
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	ds := testobj.Dataset("logs", ns, testobj.WithMounts("juicefs:///logs"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	// The runtime is created once the controller's cache holds the Dataset
	// (its Dataset reconciler, which shares that cache, has added the
	// finalizer): a runtime that arrives first has its Dataset read from
	// the API server (getDataset), a GET that the informers' order, not
	// the binding, costs.
	eventually(t, 10*time.Second, "the Dataset has its finalizer", func() bool {
		return env.Client.Get(ctx, key("logs"), ds) == nil && controllerutil.ContainsFinalizer(ds, dataset.Finalizer)
	})
	rt := testobj.JuiceFSRuntime("logs", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool { return env.Client.Get(ctx, key("logs-worker"), sts) == nil })
	markReady(t, sts)
	eventually(t, 20*time.Second, "the runtime is Ready and its events recorded", func() bool {
		if err := env.Client.Get(ctx, key("logs"), rt); err != nil {
			return false
		}
		c := meta.FindStatusCondition(rt.Status.Conditions, "Ready")
		notes := runtimeEvents(t, ns, "logs")
		return c != nil && c.Reason == "Bound" && strings.Contains(notes, "Release/Install") && strings.Contains(notes, "Bound/Reconcile")
	})
	time.Sleep(time.Second) // anything that would follow
	got := controllerRequests.in(ns)
	budget := map[string]int{
		"PUT juicefsruntimes":          1, // the finalizer
		"PATCH juicefsruntimes/status": 2, // waiting, then Ready
		"PATCH datasets":               1, // the Dataset's finalizer
		"PATCH datasets/status":        3, // NotBound, Bound, then its cache capacity (no engine pod answers here)
		"POST secrets":                 1, // Helm's release record, pending…
		"PUT secrets":                  1, // …then deployed
		"POST statefulsets":            1, // the chart: workers
		"POST daemonsets":              1, // and FUSE
		"POST persistentvolumeclaims":  1,
		"POST events":                  2, // the install, the binding
	}
	// Reads come from the cache, except Helm's: its release records (a
	// List before deciding, another in the install) and the check that the
	// chart's objects do not exist yet.
	reads := map[string]int{"GET secrets": 2, "GET statefulsets": 1, "GET daemonsets": 1}
	total, want := 0, 0
	for k, n := range got {
		if verb, _, _ := strings.Cut(k, " "); verb == "GET" || verb == "WATCH" {
			if n > reads[k] {
				t.Errorf("%s: %d, budget %d", k, n, reads[k])
			}
			continue
		}
		total += n
		if n > budget[k] {
			t.Errorf("%s: %d, budget %d", k, n, budget[k])
		}
	}
	for _, n := range budget {
		want += n
	}
	if total > want {
		t.Errorf("%d writes, budget %d", total, want)
	}
	if t.Failed() {
		t.Logf("the controller's requests in %s:\n%s", ns, formatCounts(got))
	}
}
