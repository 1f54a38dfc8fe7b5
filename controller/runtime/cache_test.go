package runtime

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestCacheCapacity(t *testing.T) {
	q := resource.MustParse("10Gi")
	rt := &datav1alpha1.JuiceFSRuntime{}
	rt.Status.WorkerNumberReady = 3
	if got := cacheCapacity(rt); got != 0 {
		t.Errorf("no tieredstore: capacity %d, want 0", got)
	}
	rt.Spec.TieredStore.Levels = []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/a,/b", Quota: &q}}
	if got := cacheCapacity(rt); got != 30<<30 {
		t.Errorf("quota 10Gi on 3 workers: capacity %d, want %d", got, int64(30<<30))
	}
	rt.Spec.TieredStore.Levels[0].QuotaList = "1Gi, 2Gi"
	if got := cacheCapacity(rt); got != 9<<30 {
		t.Errorf("quotaList overrides quota: capacity %d, want %d", got, int64(9<<30))
	}
}

func TestQuantityBytes(t *testing.T) {
	for s, want := range map[string]int64{"": 0, "10Gi": 10 << 30, "10.0GiB": 10 << 30, "1.5KiB": 1536, "512": 512, "lots": 0} {
		if got := quantityBytes(s); got != want {
			t.Errorf("quantityBytes(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestMetricsPort(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "a", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}}},
		{Name: "b", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9567}}},
	}}}
	if got := metricsPort(p); got != 9567 {
		t.Errorf("metricsPort = %d, want 9567", got)
	}
	if got := metricsPort(&corev1.Pod{}); got != 0 {
		t.Errorf("metricsPort of a pod without one = %d", got)
	}
}
