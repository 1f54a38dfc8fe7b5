package controller_test

import (
	"context"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// condition waits until the JuiceFSRuntime name in ns has condition typ
// with reason, and returns it.
func waitCondition(t *testing.T, ns, name, typ, reason string) *metav1.Condition {
	t.Helper()
	rt := &datav1alpha1.JuiceFSRuntime{}
	var c *metav1.Condition
	eventually(t, 20*time.Second, "runtime "+name+" "+typ+" "+reason, func() bool {
		if env.Client.Get(testenv.Context(t), types.NamespacedName{Namespace: ns, Name: name}, rt) != nil {
			return false
		}
		c = meta.FindStatusCondition(rt.Status.Conditions, typ)
		return c != nil && c.Reason == reason
	})
	return c
}

// TestAForeignPVCIsNeitherAdoptedNorDeleted (reliability audit H5): a
// user's PVC that happens to have the Dataset's name is not bound to the
// Dataset (VolumeConflict, naming it) and survives the runtime's deletion;
// it used to be adopted and then deleted with the runtime.
func TestAForeignPVCIsNeitherAdoptedNorDeleted(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	theirs := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imagenet"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if err := env.Client.Create(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, testobj.Dataset("imagenet", ns, testobj.WithMounts("juicefs:///imagenet"))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("imagenet", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "imagenet-worker"}, sts) == nil
	})
	markReady(t, sts)
	waitCondition(t, ns, "imagenet", cacheruntime.ConditionVolumeBound, cacheruntime.ReasonVolumeConflict)
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "imagenet"}, ds); err != nil || ds.Status.Phase == datav1alpha1.BoundDatasetPhase {
		t.Fatalf("the Dataset was bound to another's PVC: %s %v", ds.Status.Phase, err)
	}

	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the runtime is deleted", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "imagenet"}, &datav1alpha1.JuiceFSRuntime{}) != nil
	})
	got := &corev1.PersistentVolumeClaim{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "imagenet"}, got); err != nil || got.UID != theirs.UID || got.DeletionTimestamp != nil {
		t.Fatalf("the user's PVC after the runtime's deletion: %v (deleting: %v)", err, got.DeletionTimestamp)
	}
}

// TestAForeignReleaseIsLeftAlone (reliability audit H5): a Helm release
// of another chart with the runtime's name is reported (ReleaseConflict)
// and neither upgraded to the engine's chart nor uninstalled with the
// runtime.
func TestAForeignReleaseIsLeftAlone(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	hc, err := helm.NewClientForConfig(helm.NewDiscovery(env.Config), ns, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	theirs := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "their-app", Version: "1.0.0"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: their-config\ndata: {a: b}\n")}}}
	if _, err := hc.Install(context.Background(), "logs", helm.Desired{Chart: theirs, Values: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, testobj.Dataset("logs", ns, testobj.WithMounts("juicefs:///logs"))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("logs", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, ns, "logs", cacheruntime.ConditionEngineInstalled, cacheruntime.ReasonReleaseConflict)
	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the runtime is deleted", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "logs"}, &datav1alpha1.JuiceFSRuntime{}) != nil
	})
	rel, err := hc.Latest("logs")
	if err != nil || rel == nil || rel.Chart.Metadata.Name != "their-app" || rel.Version != 1 {
		t.Fatalf("their release after the runtime's deletion: %+v %v", rel, err)
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "their-config"}, &corev1.ConfigMap{}); err != nil {
		t.Fatalf("their release's ConfigMap: %v", err)
	}
}

// TestARuntimeOfAnotherKindTakesNothingWithIt (reliability audit H5): an
// AlluxioRuntime created with the name of a Dataset a JuiceFSRuntime
// serves never binds (DatasetBoundElsewhere), and deleting it leaves the
// bound runtime's release, PVC and PV; it used to uninstall them.
func TestARuntimeOfAnotherKindTakesNothingWithIt(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	if err := env.Client.Create(ctx, testobj.Dataset("imagenet", ns, testobj.WithMounts("juicefs:///imagenet"))); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, testobj.JuiceFSRuntime("imagenet", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool { return env.Client.Get(ctx, key("imagenet-worker"), sts) == nil })
	markReady(t, sts)
	ds := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset is Bound", func() bool {
		return env.Client.Get(ctx, key("imagenet"), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})

	other := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imagenet"}, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 1}}
	if err := env.Client.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the AlluxioRuntime reports the Dataset bound elsewhere", func() bool {
		if env.Client.Get(ctx, key("imagenet"), other) != nil {
			return false
		}
		c := meta.FindStatusCondition(other.Status.Conditions, cacheruntime.ConditionDatasetAvailable)
		return c != nil && c.Reason == cacheruntime.ReasonDatasetBoundElsewhere
	})
	if err := env.Client.Delete(ctx, other); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the AlluxioRuntime is deleted", func() bool {
		return env.Client.Get(ctx, key("imagenet"), &datav1alpha1.AlluxioRuntime{}) != nil
	})
	hc, err := helm.NewClientForConfig(helm.NewDiscovery(env.Config), ns, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	if rel, err := hc.Latest("imagenet"); err != nil || rel == nil || rel.Info.Status != "deployed" {
		t.Fatalf("the JuiceFS release after the AlluxioRuntime's deletion: %+v %v", rel, err)
	}
	if err := env.Client.Get(ctx, key("imagenet"), &corev1.PersistentVolumeClaim{}); err != nil {
		t.Fatalf("the Dataset's PVC: %v", err)
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: pvName(ns, "imagenet")}, &corev1.PersistentVolume{}); err != nil {
		t.Fatalf("the Dataset's PV: %v", err)
	}
	if err := env.Client.Get(ctx, key("imagenet"), ds); err != nil || ds.Status.Phase != datav1alpha1.BoundDatasetPhase {
		t.Fatalf("the Dataset after the AlluxioRuntime's deletion: %s %v", ds.Status.Phase, err)
	}
}
