package cacheruntime

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
)

// scrapeFixture is runtime "ds" with a master StatefulSet of release
// release, and pods pods labelled for metrics on port, owned by it unless
// orphans; it returns the cached figure observeCache reports ("" none).
func scrapeFixture(t *testing.T, release string, pods int, orphans bool, port int32) string {
	t.Helper()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns"}}
	master := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "ds-master", Namespace: "ns", UID: "sts-1",
		Annotations: map[string]string{helm.ReleaseNameAnnotation: release}}}
	objs := []client.Object{ds, master}
	for i := range pods {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("ds-master-%d", i), Namespace: "ns", Labels: map[string]string{"app": "ds"}},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "m", Ports: []corev1.ContainerPort{{Name: "rpc", ContainerPort: port}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1"}}
		if !orphans {
			p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(master, appsv1.SchemeGroupVersion.WithKind("StatefulSet"))}
		}
		objs = append(objs, p)
	}
	api := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).WithStatusSubresource(ds).Build()
	eng := reporter("rpc", []string{"/metrics"})
	r := &Reconciler{Client: api, Engine: eng}
	rt := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns"}}
	states, err := r.observeCache(context.Background(), eng, ds, rt, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "ds"}, ds); err != nil {
		t.Fatal(err)
	}
	return states[datav1alpha1.Cached]
}

func serve(t *testing.T, h http.HandlerFunc) int32 {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return int32(srv.Listener.Addr().(*net.TCPAddr).Port)
}

// TestScrapingTrustsOnlyTheReleasesPods (reliability audit M8): the
// controller reads the metrics of the pods its release's workloads
// control, not of any pod carrying the selector's labels, nor of pods of a
// workload another release made.
func TestScrapingTrustsOnlyTheReleasesPods(t *testing.T) {
	var asked atomic.Int32
	port := serve(t, func(w http.ResponseWriter, _ *http.Request) { asked.Add(1); _, _ = fmt.Fprint(w, "cached 1024") })
	if got := scrapeFixture(t, "ds", 1, false, port); got != "1KiB" || asked.Load() != 1 {
		t.Fatalf("the release's pod: cached %q after %d requests, want 1KiB after 1", got, asked.Load())
	}
	asked.Store(0)
	if got := scrapeFixture(t, "ds", 1, true, port); got != "" || asked.Load() != 0 {
		t.Errorf("a pod with the labels alone: cached %q after %d requests, want none", got, asked.Load())
	}
	if got := scrapeFixture(t, "someone-else", 1, false, port); got != "" || asked.Load() != 0 {
		t.Errorf("a pod of another release's workload: cached %q after %d requests, want none", got, asked.Load())
	}
}

// TestScrapingIsBounded (reliability audit M8): a page larger than
// maxMetricsPage is not read to its end, a redirect is not followed, and
// no more than scrapeConcurrency pods are read at once.
func TestScrapingIsBounded(t *testing.T) {
	huge := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprint(w, "cached 1024\n"+strings.Repeat("#", maxMetricsPage))
	})
	if got := scrapeFixture(t, "ds", 1, false, huge); got != "" {
		t.Errorf("a page over the limit: cached %q, want it refused", got)
	}

	var followed atomic.Bool
	target := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		followed.Store(true)
		_, _ = fmt.Fprint(w, "cached 1024")
	})
	redirect := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("http://127.0.0.1:%d/metrics", target), http.StatusFound)
	})
	if got := scrapeFixture(t, "ds", 1, false, redirect); got != "" || followed.Load() {
		t.Errorf("a redirect: cached %q, followed %v; want neither", got, followed.Load())
	}

	var inFlight, most atomic.Int32
	slow := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(100 * time.Millisecond)
		_, _ = fmt.Fprint(w, "cached 1024")
	})
	if got := scrapeFixture(t, "ds", 3*scrapeConcurrency, false, slow); got != "1KiB" {
		t.Errorf("%d pods: cached %q, want each pod's 1KiB", 3*scrapeConcurrency, got)
	}
	if m := most.Load(); m > scrapeConcurrency || m < 2 {
		t.Errorf("%d pods read at most %d at once, want between 2 and %d", 3*scrapeConcurrency, m, scrapeConcurrency)
	}
}

// TestCapacityIsReportedWithoutMetrics: a bound runtime whose pods do not
// answer (none started yet, as in the simulated cluster) still reports its
// cache capacity, from the tieredstore and the ready workers; the figures
// only the pods know stay as they were. The Dataset's status written from
// that observation (writeDataset, datasetStatus) holds the same.
func TestCapacityIsReportedWithoutMetrics(t *testing.T) {
	for name, tc := range map[string]struct {
		stored, want datav1alpha1.CacheStateList
	}{
		"nothing reported yet": {nil, datav1alpha1.CacheStateList{datav1alpha1.CacheCapacity: "20GiB"}},
		"earlier figures": {datav1alpha1.CacheStateList{datav1alpha1.Cached: "1KiB", datav1alpha1.CacheCapacity: "10GiB"},
			datav1alpha1.CacheStateList{datav1alpha1.Cached: "1KiB", datav1alpha1.CacheCapacity: "20GiB"}},
	} {
		t.Run(name, func(t *testing.T) {
			ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns"}, Status: datav1alpha1.DatasetStatus{CacheStates: tc.stored}}
			api := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ds).WithStatusSubresource(ds).Build()
			eng := reporter("rpc", []string{"/metrics"})
			r := &Reconciler{Client: api, Engine: eng}
			rt := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns"}}
			quota := resource.MustParse("10Gi")
			rt.Spec.TieredStore.Levels = []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/ssd", Quota: &quota}}
			states, err := r.observeCache(context.Background(), eng, ds, rt, 2, ds.Status.UfsTotal)
			if err != nil {
				t.Fatal(err)
			}
			o := observations{datasetFound: &datasetFound{exists: true}, cacheStates: states}
			if err := r.writeDataset(context.Background(), ds, func(d *datav1alpha1.Dataset) datav1alpha1.DatasetStatus {
				return datasetStatus(d, rt, eng.Type(), o)
			}); err != nil {
				t.Fatal(err)
			}
			stored := &datav1alpha1.Dataset{}
			if err := api.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "ds"}, stored); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(states, tc.want) || !maps.Equal(stored.Status.CacheStates, tc.want) {
				t.Errorf("reported %v, stored %v; want %v", states, stored.Status.CacheStates, tc.want)
			}
		})
	}
}
