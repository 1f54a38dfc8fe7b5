package juicefs_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
)

func sample() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
	quota := resource.MustParse("40Gi")
	ds := &datav1alpha1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a", UID: "0f6c3b1e-5d0e-4f7e-9a51-3c1f0e6d2a11"},
		Spec: datav1alpha1.DatasetSpec{
			Mounts: []datav1alpha1.Mount{{MountPoint: "juicefs:///imagenet", Name: "imagenet", Options: map[string]string{"bucket": "http://minio:9000/jfs"},
				EncryptOptions: []datav1alpha1.EncryptOption{{Name: "metaurl", ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "jfs-secret", Key: "metaurl"}}}}}},
			Placement:   datav1alpha1.ShareMode,
			Tolerations: []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			NodeAffinity: &datav1alpha1.CacheableNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"nvme"}}}}}}},
		},
	}
	rt := &datav1alpha1.JuiceFSRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"},
		Spec: datav1alpha1.JuiceFSRuntimeSpec{
			Replicas:    2,
			TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/mnt/cache1,/mnt/cache2", Quota: &quota}}},
			Worker:      datav1alpha1.JuiceFSCompTemplateSpec{Options: map[string]string{"free-space-ratio": "0.1"}},
			Fuse:        datav1alpha1.JuiceFSFuseSpec{Options: map[string]string{"attr-cache": "7200"}, NodeSelector: map[string]string{"gpu": "true"}},
		},
	}
	return ds, rt
}

// render renders the chart for a Dataset and runtime with the Helm SDK.
func render(t *testing.T, ds *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) map[string]string {
	t.Helper()
	_, out := enginetest.Render(t, juicefs.Engine{}, nil, ds, rt)
	return out
}

// TestChartGolden renders the JuiceFS chart with the Helm SDK for a sample
// Dataset and runtime and compares it with testdata/golden (go test
// -update rewrites them after a deliberate change).
func TestChartGolden(t *testing.T) {
	ds, rt := sample()
	enginetest.Golden(t, render(t, ds, rt), []string{"templates/fuse-daemonset.yaml", "templates/worker-statefulset.yaml"})
}

// TestRenderedObjectsMeanWhatTheSpecSays decodes the rendered objects and
// checks the properties the rest of Sluice relies on.
func TestRenderedObjectsMeanWhatTheSpecSays(t *testing.T) {
	ds, rt := sample()
	out := render(t, ds, rt)
	sts := enginetest.Decode[appsv1.StatefulSet](t, out, "templates/worker-statefulset.yaml")
	dsf := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml")
	if *sts.Spec.Replicas != 2 || len(sts.Spec.Template.Spec.Volumes) != 2 {
		t.Errorf("workers: replicas %d, volumes %v", *sts.Spec.Replicas, sts.Spec.Template.Spec.Volumes)
	}
	if sel := dsf.Spec.Template.Spec.NodeSelector; sel["fluid.io/f-team-a-imagenet"] != "true" || sel["gpu"] != "true" {
		t.Errorf("FUSE nodeSelector = %v", sel)
	}
	if dsf.Name != "imagenet"+datav1alpha1.FuseDaemonSetSuffix {
		t.Errorf("FUSE DaemonSet is %q; the webhook looks for <runtime>%s", dsf.Name, datav1alpha1.FuseDaemonSetSuffix)
	}
	// The controller finds the FUSE pods' metrics by the selector and the port name.
	src, ok := (juicefs.Engine{}).CacheMetrics(rt)
	if !ok || src.PortName != "metrics" || !slices.Equal(src.Paths, []string{"/metrics"}) || src.ClusterWide || src.Parse == nil {
		t.Errorf("cache metrics %+v (reported: %v), want each FUSE client's port \"metrics\" at /metrics", src, ok)
	}
	for k, v := range src.Selector {
		if dsf.Spec.Template.Labels[k] != v {
			t.Errorf("FUSE pod labels %v lack %s=%s, which the cache-state scrape selects", dsf.Spec.Template.Labels, k, v)
		}
	}
	fuse := dsf.Spec.Template.Spec.Containers[0]
	if len(fuse.Ports) != 1 || fuse.Ports[0].Name != "metrics" || fuse.Ports[0].ContainerPort != juicefs.MetricsPort ||
		!slices.Contains(argv(fuse), fmt.Sprintf("--metrics=0.0.0.0:%d", juicefs.MetricsPort)) {
		t.Errorf("FUSE metrics not exposed on port %d: ports %v, argv %q", juicefs.MetricsPort, fuse.Ports, argv(fuse))
	}
	// A stale mount is unmounted before juicefs mounts, by a constant script
	// that takes the mount point as an argument.
	mp := juicefs.FusePath("team-a", "imagenet")
	wantFuse := []string{"sh", "-c", juicefs.FuseScript, "sh", mp,
		"6", "juicefs", "format", "<METAURL>", "imagenet", "--bucket=http://minio:9000/jfs", "--no-update", "0",
		"juicefs", "mount", "<METAURL>", mp, "--attr-cache=7200", "--cache-dir=/mnt/cache1:/mnt/cache2", "--cache-size=40960",
		"--metrics=0.0.0.0:9567", "--subdir=/imagenet"}
	if diff := cmp.Diff(wantFuse, argv(fuse)); diff != "" {
		t.Errorf("FUSE argv (-want +got):\n%s", diff)
	}
	if stop := fuse.Lifecycle.PreStop.Exec.Command; !slices.Equal(stop, []string{"umount", mp}) {
		t.Errorf("FUSE preStop %q, want umount %s", stop, mp)
	}
	// The volume is formatted before anything mounts it: by the workers'
	// init container, and by FUSE (wantFuse) in its own container, which a
	// FUSE sidecar copies; without storage the format changes no existing
	// volume.
	wantFormat := []string{"juicefs", "format", "<METAURL>", "imagenet", "--bucket=http://minio:9000/jfs", "--no-update"}
	if init := sts.Spec.Template.Spec.InitContainers; len(init) != 1 || init[0].Name != "format" {
		t.Fatalf("worker init containers %+v, want format", init)
	} else if diff := cmp.Diff(wantFormat, argv(init[0])); diff != "" {
		t.Errorf("format argv (-want +got):\n%s", diff)
	}
	// FUSE caches to the tier too, in the same directories.
	if diff := cmp.Diff(sts.Spec.Template.Spec.Volumes, dsf.Spec.Template.Spec.Volumes[2:]); diff != "" {
		t.Errorf("FUSE cache volumes differ from the workers' (-worker +FUSE):\n%s", diff)
	}
	env := sts.Spec.Template.Spec.Containers[0].Env
	if len(env) != 1 || env[0].ValueFrom == nil || env[0].ValueFrom.SecretKeyRef.Name != "jfs-secret" {
		t.Errorf("the metaurl must come from the Secret by reference: %+v", env)
	}
	for _, m := range out {
		if strings.Contains(m, "metaurl:") || strings.Contains(m, "redis://") {
			t.Errorf("a secret value reached a manifest:\n%s", m)
		}
	}
	if a := sts.Spec.Template.Spec.Affinity; a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution == nil || a.NodeAffinity == nil {
		t.Errorf("shared placement and dataset node affinity not rendered: %+v", a)
	}
	wantWorker := []string{"juicefs", "mount", "<METAURL>", "/runtime-mnt/cache", "--cache-dir=/mnt/cache1:/mnt/cache2", "--cache-size=40960",
		"--free-space-ratio=0.1", "--metrics=0.0.0.0:9567", "--subdir=/imagenet"}
	if diff := cmp.Diff(wantWorker, argv(sts.Spec.Template.Spec.Containers[0])); diff != "" {
		t.Errorf("worker argv (-want +got):\n%s", diff)
	}
}

func TestValuesRejectWhatCannotRun(t *testing.T) {
	ds, rt := sample()
	ds.Spec.Mounts = nil
	if _, err := (juicefs.Engine{}).Values(ds, rt); err == nil {
		t.Error("a dataset without mounts must be rejected")
	}
	ds, rt = sample()
	rt.Spec.TieredStore.Levels[0].Quota = nil
	if _, err := (juicefs.Engine{}).Values(ds, rt); err == nil {
		t.Error("a cache without quota must be rejected")
	}
	if _, err := (juicefs.Engine{}).Values(ds, &datav1alpha1.AlluxioRuntime{}); err == nil {
		t.Error("another runtime kind must be rejected")
	}
}

// TestPlacementConcernsWorkersOnly: Fluid's placement applies to cache
// workers only. Only worker pods carry the placement label, an Exclusive
// worker keeps every other worker (of any dataset, in any namespace) off
// its node but never a FUSE pod, whose node app Pods are steered to, and an
// Exclusive dataset's FUSE never keeps Shared workers away.
func TestPlacementConcernsWorkersOnly(t *testing.T) {
	exclusive, shared := enginetest.CheckPlacement(t, sample, render, false)
	for _, e := range exclusive {
		want := []corev1.PodAffinityTerm{enginetest.ExclusiveTerm()}
		if diff := cmp.Diff(want, e.Worker.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution); diff != "" {
			t.Errorf("Exclusive workers must avoid every worker, in every namespace (-want +got):\n%s", diff)
		}
	}
	for _, s := range shared {
		if p := s.Worker.Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution; len(p) != 1 {
			t.Errorf("Shared workers lost their preferred spread: %+v", p)
		}
	}
}

// argv is what the container's process receives: command then args, after
// the kubelet's expansion.
func argv(c corev1.Container) []string {
	e := enginetest.Effective(c)
	return append(append([]string{}, e.Command...), e.Args...)
}
