package bench_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/webhook"
)

// The cache-memory benchmarks (audit N9) fill the API server with what
// tenants may create, then sync an informer cache shaped as the
// controller's (controller.CacheOptions) or the webhook's
// (webhook.CacheOptions), and as each was before (no transforms), and
// report the Go heap the cache holds after a GC (heap-MiB: spans in use,
// bytes/object; live-MiB: live bytes) and the process's RSS. Counts: SLUICE_BENCH_PODS (default 50,000) and
// SLUICE_BENCH_PVCS (default 3,000); run with -benchtime=1x.

func envCount(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// tenantPod is a Pod as a tenant's workload has it: two containers with
// commands, ten environment variables and probes, a ConfigMap volume and
// 2 KiB of annotations (managedFields are the API server's).
func tenantPod(ns string, i int) *corev1.Pod {
	env := make([]corev1.EnvVar, 10)
	for j := range env {
		env[j] = corev1.EnvVar{Name: fmt.Sprintf("SETTING_%d", j), Value: strings.Repeat("v", 40)}
	}
	c := corev1.Container{Name: "app", Image: "registry.example.com/team/app:1.2.3", Command: []string{"/bin/app", "--config", "/etc/app/config.yaml"},
		Env: env, Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}}},
		VolumeMounts:   []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}}}
	side := c
	side.Name, side.Command = "proxy", []string{"/bin/proxy"}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%06d", i), Namespace: ns,
			Labels:      map[string]string{"app": "team-app", "pod-template-hash": "5d8f7c9b6"},
			Annotations: map[string]string{"example.com/build-info": strings.Repeat("b", 2048)}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{c, side},
			Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}}},
	}
}

// tenantClaim is the audit's PVC: labelled fluid.io/dataset-id, as any
// tenant may, with 250 KiB of annotations.
func tenantClaim(ns string, i int) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c-%05d", i), Namespace: ns,
			Labels:      map[string]string{datav1alpha1.LabelDatasetID: "x"},
			Annotations: map[string]string{"example.com/blob": strings.Repeat("a", 250<<10)}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
	}
}

// seed creates n objects in a fresh namespace, 16 at a time, unless a
// namespace of that name already holds them (a second run).
func seed(b *testing.B, ns string, n int, obj func(string, int) client.Object) {
	b.Helper()
	ctx := benchCtx
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := parallel(16, n, func(i int) error { return env.Client.Create(ctx, obj(ns, i)) }); err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d objects in %v (%.0f/s)", n, time.Since(start).Round(time.Second), float64(n)/time.Since(start).Seconds())
}

// measure syncs a cache with opts for kind and reports the heap it holds
// after a GC, per object, and the process's RSS.
func measure(b *testing.B, opts cache.Options, kind client.Object, n int) {
	b.Helper()
	opts.Scheme = sluicescheme.New()
	for range b.N {
		runtime.GC()
		before, beforeLive := heapInUse()
		ctx, cancel := context.WithCancel(benchCtx)
		c, err := cache.New(env.Config, opts)
		if err != nil {
			b.Fatal(err)
		}
		go func() { _ = c.Start(ctx) }()
		start := time.Now()
		if _, err := c.GetInformer(ctx, kind); err != nil {
			b.Fatal(err)
		}
		if !c.WaitForCacheSync(ctx) {
			b.Fatal("the cache did not sync")
		}
		synced := time.Since(start)
		runtime.GC()
		inUse, live := heapInUse()
		held := inUse - before
		rss := rssBytes()
		runtime.KeepAlive(c)
		cancel()
		b.ReportMetric(float64(held)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(held)/float64(n), "bytes/object")
		b.ReportMetric(float64(live-beforeLive)/(1<<20), "live-MiB")
		b.ReportMetric(float64(rss)/(1<<20), "rss-MiB")
		b.ReportMetric(synced.Seconds(), "sync-s")
	}
}

// heapInUse is the heap's spans in use (what the heap takes, holes
// included) and its live bytes (HeapAlloc, right after a GC).
func heapInUse() (inUse, live int64) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse), int64(m.HeapAlloc)
}

// rssBytes is the process's resident set (VmRSS), 0 if unknown.
func rssBytes() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkControllerPodCache: the controller's Pod cache with
// SLUICE_BENCH_PODS tenant Pods in the cluster, trimmed (today's
// controller.CacheOptions) and as before (no cache options).
func BenchmarkControllerPodCache(b *testing.B) {
	n := envCount("SLUICE_BENCH_PODS", 50000)
	seed(b, "bench-pods", n, func(ns string, i int) client.Object { return tenantPod(ns, i) })
	b.Run("before", func(b *testing.B) { measure(b, cache.Options{}, &corev1.Pod{}, n) })
	b.Run("trimmed", func(b *testing.B) { measure(b, controller.CacheOptions(), &corev1.Pod{}, n) })
	b.Run("process", func(b *testing.B) { processRSS(b, "controller-pods") })
}

// BenchmarkWebhookTenantClaims: the webhook's PVC cache with
// SLUICE_BENCH_PVCS tenant PVCs labelled fluid.io/dataset-id carrying
// 250 KiB of annotations each, trimmed (webhook.CacheOptions) and as
// before (the same selectors, no transforms).
func BenchmarkWebhookTenantClaims(b *testing.B) {
	n := envCount("SLUICE_BENCH_PVCS", 3000)
	seed(b, "bench-claims", n, func(ns string, i int) client.Object { return tenantClaim(ns, i) })
	untrimmed := webhook.CacheOptions([]string{webhook.DefaultNamespace}, webhook.DefaultNamespace)
	untrimmed.DefaultTransform = nil
	for obj, by := range untrimmed.ByObject {
		by.Transform = nil
		untrimmed.ByObject[obj] = by
	}
	b.Run("before", func(b *testing.B) { measure(b, untrimmed, &corev1.PersistentVolumeClaim{}, n) })
	b.Run("trimmed", func(b *testing.B) {
		measure(b, webhook.CacheOptions([]string{webhook.DefaultNamespace}, webhook.DefaultNamespace), &corev1.PersistentVolumeClaim{}, n)
	})
	b.Run("process", func(b *testing.B) { processRSS(b, "webhook-claims") })
}

// BenchmarkWebhookDatasets: a process holding every informer the webhook
// reads (webhook.Informed, with webhook.CacheOptions) with benchDatasets
// Bound datasets in the cluster (SLUICE_BENCH_DATASETS, default 1,000;
// each a Dataset, JuiceFSRuntime, PVC, PV and FUSE DaemonSet, as the
// admission benchmarks seed them), and (admitted) the same process after
// its mutating handler admitted a Pod of every dataset, its memos full.
// Target (issue 34): at most 500 MiB of RSS at 10,000.
func BenchmarkWebhookDatasets(b *testing.B) {
	setup(b)
	b.Run(fmt.Sprintf("datasets=%d/process", benchDatasets), func(b *testing.B) { processRSS(b, "webhook-informed") })
	b.Run(fmt.Sprintf("datasets=%d/admitted", benchDatasets), func(b *testing.B) { processRSS(b, "webhook-admitted") })
}
