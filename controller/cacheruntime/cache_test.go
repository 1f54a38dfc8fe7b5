package cacheruntime

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/fake"
)

func TestCacheCapacity(t *testing.T) {
	q := resource.MustParse("10Gi")
	rt := &datav1alpha1.JuiceFSRuntime{}
	rt.Status.WorkerNumberReady = 3
	if got := cacheCapacity(rt, rt.Status.WorkerNumberReady); got != 0 {
		t.Errorf("no tieredstore: capacity %d, want 0", got)
	}
	rt.Spec.TieredStore.Levels = []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/a,/b", Quota: &q}}
	if got := cacheCapacity(rt, rt.Status.WorkerNumberReady); got != 30<<30 {
		t.Errorf("quota 10Gi on 3 workers: capacity %d, want %d", got, int64(30<<30))
	}
	rt.Spec.TieredStore.Levels[0].QuotaList = "1Gi, 2Gi"
	if got := cacheCapacity(rt, rt.Status.WorkerNumberReady); got != 9<<30 {
		t.Errorf("quotaList overrides quota: capacity %d, want %d", got, int64(9<<30))
	}
}

// TestTierCapacityOfEveryRuntimeKind: the node capacity labels come from
// the tieredstore of every runtime kind. ThinRuntime's was once ignored, so
// Thin cache nodes were labelled with a capacity of 0.
func TestTierCapacityOfEveryRuntimeKind(t *testing.T) {
	mem, disk := resource.MustParse("2Gi"), resource.MustParse("10Gi")
	ts := datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
		{MediumType: datav1alpha1.Memory, Path: "/dev/shm", Quota: &mem},
		{MediumType: datav1alpha1.SSD, Path: "/ssd", Quota: &disk},
	}}
	for _, rt := range []datav1alpha1.RuntimeObject{
		&datav1alpha1.AlluxioRuntime{Spec: datav1alpha1.AlluxioRuntimeSpec{TieredStore: ts}},
		&datav1alpha1.JuiceFSRuntime{Spec: datav1alpha1.JuiceFSRuntimeSpec{TieredStore: ts}},
		&datav1alpha1.JindoRuntime{Spec: datav1alpha1.JindoRuntimeSpec{TieredStore: ts}},
		&datav1alpha1.ThinRuntime{Spec: datav1alpha1.ThinRuntimeSpec{TieredStore: ts}},
	} {
		if m, d := tierCapacity(rt); m != 2<<30 || d != 10<<30 {
			t.Errorf("%T: capacity memory %d, disk %d; want %d, %d", rt, m, d, int64(2<<30), int64(10<<30))
		}
	}
}

func TestMetricsPort(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "a", Ports: []corev1.ContainerPort{{Name: "rpc", ContainerPort: 8101}}},
		{Name: "b", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9567}}},
	}}}
	if got := metricsPort(p, "metrics"); got != 9567 {
		t.Errorf("metricsPort(metrics) = %d, want 9567", got)
	}
	if got := metricsPort(p, "rpc"); got != 8101 {
		t.Errorf("metricsPort(rpc) = %d, want 8101", got)
	}
	if got := metricsPort(&corev1.Pod{}, "metrics"); got != 0 {
		t.Errorf("metricsPort of a pod without one = %d", got)
	}
}

// reporter is an engine whose pods serve a one-line page, "cached N", on
// the port named portName at one of paths.
func reporter(portName string, paths []string) engines.Engine {
	return fake.Engine{Metrics: &engines.MetricsSource{
		Selector: map[string]string{"app": "ds"}, PortName: portName, Paths: paths,
		Parse: func(r io.Reader) (engines.CacheCounters, error) {
			var c engines.CacheCounters
			_, err := fmt.Fscanf(r, "cached %g", &c.CachedBytes)
			return c, err
		},
	}}
}

// TestObserveCacheAtTheEnginesPortAndPaths scrapes a pod whose metrics are
// on a port not named "metrics", at the last of the engine's paths: the
// first answers 404, the second a page that does not parse. Only the port
// the engine names is read.
func TestObserveCacheAtTheEnginesPortAndPaths(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/html":
			_, _ = fmt.Fprint(w, "<html></html>")
		case "/metrics/prometheus":
			_, _ = fmt.Fprint(w, "cached 1024")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	port := int32(srv.Listener.Addr().(*net.TCPAddr).Port)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := int32(closed.Addr().(*net.TCPAddr).Port)
	closed.Close()

	paths := []string{"/jindo_metrics/prometheus", "/html", "/metrics/prometheus"}
	for name, tc := range map[string]struct {
		engine engines.Engine
		pod    map[string]int32 // container port name → number
		cached string           // "" when nothing is scraped
		asked  []string         // the paths requested, in order
	}{
		"port name and paths": {reporter("rpc", paths),
			map[string]int32{"rpc": port, "metrics": dead}, "1KiB", paths},
		"port name, one path": {reporter("rpc", paths[2:]),
			map[string]int32{"rpc": port}, "1KiB", paths[2:]},
		"the port named metrics": {reporter("metrics", paths[2:]),
			map[string]int32{"rpc": dead, "metrics": port}, "1KiB", paths[2:]},
		"no port of the name": {reporter("metrics", paths[2:]),
			map[string]int32{"rpc": port}, "", nil},
		// A pod that does not answer is not asked at the other paths.
		"dead port": {reporter("rpc", paths),
			map[string]int32{"rpc": dead}, "", paths[:1]},
	} {
		t.Run(name, func(t *testing.T) {
			var asked []string
			hc := &http.Client{Transport: roundTripper(func(req *http.Request) (*http.Response, error) {
				asked = append(asked, req.URL.Path)
				return http.DefaultTransport.RoundTrip(req)
			})}
			ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns"}}
			master := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "ds-master", Namespace: "ns", UID: "sts-1",
				Annotations: map[string]string{"meta.helm.sh/release-name": "ds"}}}
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ds-master-0", Namespace: "ns", Labels: map[string]string{"app": "ds"},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(master, appsv1.SchemeGroupVersion.WithKind("StatefulSet"))}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1"}}
			c := corev1.Container{Name: "master"}
			for _, n := range slices.Sorted(maps.Keys(tc.pod)) {
				c.Ports = append(c.Ports, corev1.ContainerPort{Name: n, ContainerPort: tc.pod[n]})
			}
			pod.Spec.Containers = []corev1.Container{c}
			api := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ds, master, pod).WithStatusSubresource(ds).Build()
			r := &Reconciler{Client: api, Engine: tc.engine, HTTPClient: hc}
			rt := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns"}}
			states, err := r.observeCache(context.Background(), tc.engine, ds, rt, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := states[datav1alpha1.Cached]; got != tc.cached {
				t.Errorf("cached = %q, want %q", got, tc.cached)
			}
			if !slices.Equal(asked, tc.asked) {
				t.Errorf("paths asked %q, want %q", asked, tc.asked)
			}
		})
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
