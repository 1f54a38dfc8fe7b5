package webhook_test

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook/mutating/mountcheck"
)

var sidecarLabels = map[string]string{datav1alpha1.LabelServerlessInject: "true"}

func withLabels(extra map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range sidecarLabels {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func volumeNamed(p *corev1.Pod, name string) *corev1.Volume {
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].Name == name {
			return &p.Spec.Volumes[i]
		}
	}
	return nil
}

// TestAppContainersWaitForTheirMountsThroughTheAPIServer: a Pod labelled
// app.poststart.fluid.io/inject=true is stored with a postStart hook on the
// app container that mounts the dataset (the fixed mount-check script, the
// path an argument); a container with a hook of its own keeps it, and the
// client is warned. The FUSE sidecar's startup probe checks its mount
// point the same way. Without the label the app container gets no hook.
func TestAppContainersWaitForTheirMountsThroughTheAPIServer(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "models", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	c, warned := warnedClient(t)

	pod := datasetPod("serve", withLabels(map[string]string{datav1alpha1.LabelAppPostStartInject: "true"}), "models")
	pod.Namespace = ns
	own := &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/warm-up"}}}
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "warm", Image: "busybox",
		VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/in"}}, Lifecycle: &corev1.Lifecycle{PostStart: own}})
	if err := c.Create(ctxT(t), pod); err != nil {
		t.Fatalf("create: %v", err)
	}
	got := &corev1.Pod{}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(pod), got); err != nil {
		t.Fatal(err)
	}
	app, warm := got.Spec.Containers[0], got.Spec.Containers[1]
	if app.Lifecycle == nil || app.Lifecycle.PostStart == nil || !slices.Equal(app.Lifecycle.PostStart.Exec.Command, mountcheck.Command(120, "/data")) {
		t.Fatalf("app container's postStart = %+v", app.Lifecycle)
	}
	if warm.Lifecycle == nil || !slices.Equal(warm.Lifecycle.PostStart.Exec.Command, own.Exec.Command) {
		t.Fatalf("the container's own postStart hook was replaced: %+v", warm.Lifecycle)
	}
	if !strings.Contains(warned.String(), `container "warm" has a postStart hook of its own`) {
		t.Errorf("warnings = %q", warned.String())
	}
	fuse := got.Spec.InitContainers[0]
	if fuse.StartupProbe == nil || !slices.Equal(fuse.StartupProbe.Exec.Command, mountcheck.Command(1, "/runtime-mnt/juicefs/"+ns+"/models/juicefs-fuse")) {
		t.Fatalf("FUSE sidecar's startup probe = %+v", fuse.StartupProbe)
	}

	plain := datasetPod("plain", sidecarLabels, "models")
	plain.Namespace = ns
	if err := env.Client.Create(ctxT(t), plain); err != nil {
		t.Fatal(err)
	}
	if l := plain.Spec.Containers[0].Lifecycle; l != nil {
		t.Fatalf("an app container got a hook without the label: %+v", l)
	}
}

// TestRandomSuffixHostDirectoriesThroughTheAPIServer: two Pods annotated
// host-mount-path-mode=random-suffix on one dataset are stored with
// different host directories for their FUSE sidecars, and each Pod's
// dataset volume is the FUSE mount inside its own directory. A Pod without
// the annotation keeps the shared directory; an unknown mode warns.
func TestRandomSuffixHostDirectoriesThroughTheAPIServer(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "models", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	c, warned := warnedClient(t)
	base := "/runtime-mnt/juicefs/" + ns + "/models"

	dirs := map[string]bool{}
	for _, name := range []string{"serve-a", "serve-b"} {
		pod := datasetPod(name, sidecarLabels, "models")
		pod.Namespace = ns
		pod.Annotations = map[string]string{datav1alpha1.AnnotationHostMountPathMode: datav1alpha1.HostMountPathModeRandomSuffix}
		if err := c.Create(ctxT(t), pod); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		fuseDir := volumeNamed(pod, "fuse-mount")
		if fuseDir == nil || fuseDir.HostPath == nil || !strings.HasPrefix(fuseDir.HostPath.Path, base+"/"+name+"-") {
			t.Fatalf("%s: FUSE host directory = %+v, want %s/%s-<random>", name, fuseDir, base, name)
		}
		if data := volumeNamed(pod, "data"); data.HostPath == nil || data.HostPath.Path != fuseDir.HostPath.Path+"/juicefs-fuse" {
			t.Fatalf("%s: dataset volume = %+v, want the FUSE mount in %s", name, data.VolumeSource, fuseDir.HostPath.Path)
		}
		dirs[fuseDir.HostPath.Path] = true
	}
	if len(dirs) != 2 {
		t.Fatalf("two Pods share a host directory: %v", dirs)
	}

	shared := datasetPod("shared", sidecarLabels, "models")
	shared.Namespace = ns
	shared.Annotations = map[string]string{datav1alpha1.AnnotationHostMountPathMode: "per-pod"}
	if err := c.Create(ctxT(t), shared); err != nil {
		t.Fatal(err)
	}
	if v := volumeNamed(shared, "fuse-mount"); v.HostPath.Path != base {
		t.Errorf("FUSE host directory without random-suffix = %s", v.HostPath.Path)
	}
	if !strings.Contains(warned.String(), `host-mount-path-mode: unknown mode "per-pod"`) {
		t.Errorf("warnings = %q", warned.String())
	}
}

// TestCacheDirVolumesThroughTheAPIServer: the FUSE template's cache-dir
// volume is left out of the sidecar unless the Pod is labelled
// cachedir.sidecar.fluid.io/inject=true; on a template without one the
// label warns that it changes nothing.
func TestCacheDirVolumesThroughTheAPIServer(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "bare", datav1alpha1.BoundDatasetPhase)
	seedDataset(t, ns, "cached", datav1alpha1.BoundDatasetPhase)
	ds := &appsv1.DaemonSet{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: "cached" + datav1alpha1.FuseDaemonSetSuffix}, ds); err != nil {
		t.Fatal(err)
	}
	spec := &ds.Spec.Template.Spec
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "cache-dir", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/jfsCache"}}})
	spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "cache-dir", MountPath: "/var/jfsCache"})
	if err := env.Client.Update(ctxT(t), ds); err != nil {
		t.Fatal(err)
	}
	waitForCache()
	c, warned := warnedClient(t)
	keep := map[string]string{datav1alpha1.LabelCacheDirInject: "true"}

	for _, tt := range []struct {
		name, claim string
		labels      map[string]string
		wantCache   bool
	}{
		{"dropped", "cached", sidecarLabels, false},
		{"kept", "cached", withLabels(keep), true},
	} {
		pod := datasetPod(tt.name, tt.labels, tt.claim)
		pod.Namespace = ns
		if err := c.Create(ctxT(t), pod); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		mounted := slices.ContainsFunc(pod.Spec.InitContainers[0].VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "cache-dir" })
		if has := volumeNamed(pod, "cache-dir") != nil; has != tt.wantCache || mounted != tt.wantCache {
			t.Errorf("%s: cache-dir volume %v, mounted by the sidecar %v; want %v", tt.name, has, mounted, tt.wantCache)
		}
	}
	if warned.String() != "" {
		t.Errorf("warnings on a template with a cache-dir volume: %q", warned.String())
	}

	bare := datasetPod("bare", withLabels(keep), "bare")
	bare.Namespace = ns
	if err := c.Create(ctxT(t), bare); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warned.String(), "cachedir.sidecar.fluid.io/inject: the FUSE template of dataset "+ns+"/bare has no cache-dir volume") {
		t.Errorf("warnings = %q", warned.String())
	}
}
