package juicefs_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines/juicefs"
)

var update = flag.Bool("update", false, "rewrite the golden files")

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

// TestChartGolden renders the JuiceFS chart with the Helm SDK for a sample
// Dataset and runtime and compares it with testdata/golden (go test
// -update rewrites them after a deliberate change).
func TestChartGolden(t *testing.T) {
	ds, rt := sample()
	values, err := juicefs.Engine{}.Values(ds, rt)
	if err != nil {
		t.Fatal(err)
	}
	c, err := helm.LoadChart(juicefs.Engine{}.Chart())
	if err != nil {
		t.Fatal(err)
	}
	out, err := helm.Render(context.Background(), c, values, "imagenet", "team-a")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 {
		t.Fatalf("rendered %v, want the worker StatefulSet and the FUSE DaemonSet", helm.SortedKeys(out))
	}
	for _, name := range helm.SortedKeys(out) {
		golden := filepath.Join("testdata", "golden", strings.ReplaceAll(name, "/", "_"))
		if *update {
			if err := os.WriteFile(golden, []byte(out[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if diff := cmp.Diff(string(want), out[name]); diff != "" {
			t.Errorf("%s differs from %s (-golden +rendered):\n%s", name, golden, diff)
		}
	}
}

// TestRenderedObjectsMeanWhatTheSpecSays decodes the rendered objects and
// checks the properties the rest of Sluice relies on.
func TestRenderedObjectsMeanWhatTheSpecSays(t *testing.T) {
	ds, rt := sample()
	values, err := juicefs.Engine{}.Values(ds, rt)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := helm.LoadChart(juicefs.Engine{}.Chart())
	out, err := helm.Render(context.Background(), c, values, "imagenet", "team-a")
	if err != nil {
		t.Fatal(err)
	}
	sts, dsf := &appsv1.StatefulSet{}, &appsv1.DaemonSet{}
	if err := yaml.UnmarshalStrict([]byte(out["templates/worker-statefulset.yaml"]), sts); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(out["templates/fuse-daemonset.yaml"]), dsf); err != nil {
		t.Fatal(err)
	}
	if *sts.Spec.Replicas != 2 || len(sts.Spec.Template.Spec.Volumes) != 2 {
		t.Errorf("workers: replicas %d, volumes %v", *sts.Spec.Replicas, sts.Spec.Template.Spec.Volumes)
	}
	if sel := dsf.Spec.Template.Spec.NodeSelector; sel["fluid.io/f-team-a-imagenet"] != "true" || sel["gpu"] != "true" {
		t.Errorf("FUSE nodeSelector = %v", sel)
	}
	if dsf.Name != "imagenet"+datav1alpha1.FuseDaemonSetSuffix {
		t.Errorf("FUSE DaemonSet is %q; the webhook looks for <runtime>%s", dsf.Name, datav1alpha1.FuseDaemonSetSuffix)
	}
	// The controller finds the FUSE pods' metrics by CachePods and the port name.
	for k, v := range (juicefs.Engine{}).CachePods(rt) {
		if dsf.Spec.Template.Labels[k] != v {
			t.Errorf("FUSE pod labels %v lack %s=%s, which the cache-state scrape selects", dsf.Spec.Template.Labels, k, v)
		}
	}
	fuse := dsf.Spec.Template.Spec.Containers[0]
	if len(fuse.Ports) != 1 || fuse.Ports[0].Name != "metrics" || fuse.Ports[0].ContainerPort != juicefs.MetricsPort ||
		!strings.Contains(fuse.Args[0], fmt.Sprintf("--metrics=0.0.0.0:%d", juicefs.MetricsPort)) {
		t.Errorf("FUSE metrics not exposed on port %d: ports %v, args %q", juicefs.MetricsPort, fuse.Ports, fuse.Args[0])
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
	if !strings.Contains(sts.Spec.Template.Spec.Containers[0].Args[0], "--cache-dir=/mnt/cache1:/mnt/cache2 --cache-size=40960") {
		t.Errorf("cache args: %q", sts.Spec.Template.Spec.Containers[0].Args[0])
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

// placementLabel is the label of cache workers that placement anti-affinity selects.
const placementLabel = "fluid.io/dataset-placement"

// placedRelease is the worker and FUSE of one rendered release.
type placedRelease struct {
	worker *appsv1.StatefulSet
	fuse   *appsv1.DaemonSet
}

func renderPlaced(t *testing.T, namespace, name string, placement datav1alpha1.PlacementMode) placedRelease {
	t.Helper()
	ds, rt := sample()
	ds.Namespace, ds.Name, rt.Namespace, rt.Name = namespace, name, namespace, name
	ds.Spec.Placement = placement
	values, err := juicefs.Engine{}.Values(ds, rt)
	if err != nil {
		t.Fatal(err)
	}
	c, err := helm.LoadChart(juicefs.Engine{}.Chart())
	if err != nil {
		t.Fatal(err)
	}
	out, err := helm.Render(context.Background(), c, values, name, namespace)
	if err != nil {
		t.Fatal(err)
	}
	r := placedRelease{worker: &appsv1.StatefulSet{}, fuse: &appsv1.DaemonSet{}}
	if err := yaml.UnmarshalStrict([]byte(out["templates/worker-statefulset.yaml"]), r.worker); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(out["templates/fuse-daemonset.yaml"]), r.fuse); err != nil {
		t.Fatal(err)
	}
	return r
}

// repels reports whether a required pod anti-affinity term of the workers
// selects a pod of the namespace with the labels, which keeps either pod off
// the other's node (the scheduler also checks existing pods' terms against
// an incoming pod). A term applies to its own namespace unless its
// namespaceSelector is {} (every namespace).
func repels(t *testing.T, w *appsv1.StatefulSet, namespace string, podLabels map[string]string) bool {
	t.Helper()
	for _, term := range w.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		everywhere := term.NamespaceSelector != nil && len(term.NamespaceSelector.MatchLabels) == 0 && len(term.NamespaceSelector.MatchExpressions) == 0
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil {
			t.Fatal(err)
		}
		if (everywhere || namespace == w.Namespace) && sel.Matches(labels.Set(podLabels)) {
			return true
		}
	}
	return false
}

// TestPlacementConcernsWorkersOnly: Fluid's placement applies to cache
// workers only. Only worker pods carry the placement label, an Exclusive
// worker keeps every other worker (of any dataset, in any namespace) off
// its node but never a FUSE pod, whose node app Pods are steered to, and an
// Exclusive dataset's FUSE never keeps Shared workers away.
func TestPlacementConcernsWorkersOnly(t *testing.T) {
	excl := renderPlaced(t, "team-a", "imagenet", datav1alpha1.ExclusiveMode)
	unset := renderPlaced(t, "team-c", "laion", datav1alpha1.DefaultMode)
	shared := renderPlaced(t, "team-b", "coco", datav1alpha1.ShareMode)
	shared2 := renderPlaced(t, "team-d", "mnist", datav1alpha1.ShareMode)
	all := []placedRelease{excl, unset, shared, shared2}
	for _, r := range all {
		if _, ok := r.fuse.Spec.Template.Labels[placementLabel]; ok || r.fuse.Spec.Template.Labels["fluid.io/dataset"] == "" {
			t.Errorf("%s FUSE pod labels %v: want fluid.io/dataset and no %s", r.fuse.Name, r.fuse.Spec.Template.Labels, placementLabel)
		}
		if p := r.worker.Spec.Template.Labels[placementLabel]; p != "Exclusive" && p != "Shared" {
			t.Errorf("%s pod labels %v lack %s", r.worker.Name, r.worker.Spec.Template.Labels, placementLabel)
		}
	}
	for _, e := range []placedRelease{excl, unset} {
		if p := e.worker.Spec.Template.Labels[placementLabel]; p != "Exclusive" {
			t.Errorf("%s/%s worker placement label %q, want Exclusive", e.worker.Namespace, e.worker.Name, p)
		}
		want := []corev1.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname", NamespaceSelector: &metav1.LabelSelector{},
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: placementLabel, Operator: metav1.LabelSelectorOpExists}}}}}
		if diff := cmp.Diff(want, e.worker.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution); diff != "" {
			t.Errorf("Exclusive workers must avoid every worker, in every namespace (-want +got):\n%s", diff)
		}
		for _, r := range all {
			if repels(t, e.worker, r.fuse.Namespace, r.fuse.Spec.Template.Labels) {
				t.Errorf("an Exclusive worker of %s keeps the FUSE pod of %s/%s off its node", e.worker.Namespace, r.fuse.Namespace, r.fuse.Name)
			}
			if !repels(t, e.worker, r.worker.Namespace, r.worker.Spec.Template.Labels) {
				t.Errorf("an Exclusive worker of %s shares its node with a worker of %s", e.worker.Namespace, r.worker.Namespace)
			}
		}
	}
	for _, r := range []placedRelease{excl, unset} {
		if !repels(t, shared.worker, r.worker.Namespace, r.worker.Spec.Template.Labels) {
			t.Errorf("a Shared worker may run beside an Exclusive worker of %s", r.worker.Namespace)
		}
		if repels(t, shared.worker, r.fuse.Namespace, r.fuse.Spec.Template.Labels) {
			t.Errorf("the FUSE pod of Exclusive %s keeps Shared workers off its node", r.fuse.Namespace)
		}
	}
	if p := shared.worker.Spec.Template.Labels[placementLabel]; p != "Shared" {
		t.Errorf("Shared worker placement label %q", p)
	}
	if repels(t, shared.worker, shared2.worker.Namespace, shared2.worker.Spec.Template.Labels) ||
		repels(t, shared.worker, shared.fuse.Namespace, shared.fuse.Spec.Template.Labels) {
		t.Error("Shared workers must share nodes with other Shared workers and with FUSE")
	}
	if p := shared.worker.Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution; len(p) != 1 {
		t.Errorf("Shared workers lost their preferred spread: %+v", p)
	}
}
