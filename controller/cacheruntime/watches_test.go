package cacheruntime

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
)

func TestRuntimeChangedIgnoresStatusWrites(t *testing.T) {
	old := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", Generation: 1, ResourceVersion: "1"}}
	update := func(change func(*datav1alpha1.JuiceFSRuntime)) bool {
		cur := old.DeepCopy()
		cur.ResourceVersion = "2"
		change(cur)
		return runtimeChanged.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: cur})
	}
	if update(func(r *datav1alpha1.JuiceFSRuntime) { r.Status.WorkerPhase = datav1alpha1.RuntimePhaseReady }) {
		t.Error("a status write woke the runtime")
	}
	if update(func(r *datav1alpha1.JuiceFSRuntime) { r.Finalizers = []string{Finalizer} }) {
		t.Error("adding the finalizer woke the runtime")
	}
	for name, change := range map[string]func(*datav1alpha1.JuiceFSRuntime){
		"spec":       func(r *datav1alpha1.JuiceFSRuntime) { r.Generation, r.Spec.Replicas = 2, 3 },
		"deletion":   func(r *datav1alpha1.JuiceFSRuntime) { r.DeletionTimestamp = &metav1.Time{} },
		"label":      func(r *datav1alpha1.JuiceFSRuntime) { r.Labels = map[string]string{"a": "b"} },
		"annotation": func(r *datav1alpha1.JuiceFSRuntime) { r.Annotations = map[string]string{"a": "b"} },
	} {
		if !update(change) {
			t.Errorf("a %s change did not wake the runtime", name)
		}
	}
	if !runtimeChanged.Create(event.CreateEvent{Object: old}) || !runtimeChanged.Delete(event.DeleteEvent{Object: old}) {
		t.Error("creation and deletion must wake the runtime")
	}
}

func TestPodChanged(t *testing.T) {
	old := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "w-0", Labels: map[string]string{"a": "b"}}}
	update := func(change func(*corev1.Pod)) bool {
		cur := old.DeepCopy()
		change(cur)
		return podChanged.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: cur})
	}
	if update(func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: 1}}
	}) {
		t.Error("a container status change woke the runtime")
	}
	for name, change := range map[string]func(*corev1.Pod){
		"scheduling": func(p *corev1.Pod) { p.Spec.NodeName = "node-a" },
		"readiness": func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		},
		"phase":    func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded },
		"address":  func(p *corev1.Pod) { p.Status.PodIP = "10.0.0.7" },
		"labels":   func(p *corev1.Pod) { p.Labels = nil },
		"deletion": func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{} },
	} {
		if !update(change) {
			t.Errorf("a %s change did not wake the runtime", name)
		}
	}
}

func TestStatefulSetChanged(t *testing.T) {
	old := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "d-worker", Generation: 1}}
	cur := old.DeepCopy()
	cur.Annotations = map[string]string{"a": "b"}
	if statefulSetChanged.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: cur}) {
		t.Error("a metadata change woke the runtime")
	}
	cur.Status.ReadyReplicas = 1
	if !statefulSetChanged.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: cur}) {
		t.Error("a ready worker did not wake the runtime")
	}
}

func TestRequestMappers(t *testing.T) {
	ctx := context.Background()
	req := func(ns, name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "d-worker", Namespace: "n",
		// Helm marks what it creates; the chart's own managed-by label is
		// replaced by Helm's.
		Labels:      map[string]string{"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/instance": "d"},
		Annotations: map[string]string{helm.ReleaseNameAnnotation: "d", helm.ReleaseNamespaceAnnotation: "n"}}}
	if got := releaseRequests(ctx, sts); !slices.Equal(got, []reconcile.Request{req("n", "d")}) {
		t.Errorf("release workload: %v", got)
	}
	sts.Annotations[helm.ReleaseNamespaceAnnotation] = "other"
	if got := releaseRequests(ctx, sts); got != nil {
		t.Errorf("a release of another namespace: %v", got)
	}
	if got := releaseRequests(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "n"}}); got != nil {
		t.Errorf("a StatefulSet of no release: %v", got)
	}

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "d-worker-0", Namespace: "n",
		Labels: map[string]string{"app.kubernetes.io/managed-by": "sluice", "app.kubernetes.io/instance": "d"}},
		Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "e"}}}}}}
	if got := podRequests(ctx, pod); !slices.Equal(got, []reconcile.Request{req("n", "e"), req("n", "d")}) {
		t.Errorf("engine pod mounting a dataset: %v", got)
	}
	sidecar := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "n",
		Annotations: map[string]string{datav1alpha1.AnnotationDatasetsInUse: "f,other/g,n/h"}}}
	if got := podRequests(ctx, sidecar); !slices.Equal(got, []reconcile.Request{req("n", "f"), req("n", "h")}) {
		t.Errorf("a Pod whose PVC the webhook rewrote to a FUSE sidecar: %v", got)
	}
	if got := sameName(ctx, &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}}); !slices.Equal(got, []reconcile.Request{req("n", "d")}) {
		t.Errorf("dataset: %v", got)
	}
}
