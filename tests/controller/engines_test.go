package controller_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/engines/thin"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// readyReason returns the reason of a runtime's Ready condition, or "".
func readyReason(conds []metav1.Condition) string {
	if c := meta.FindStatusCondition(conds, cacheruntime.ConditionReady); c != nil {
		return c.Reason
	}
	return ""
}

// TestJindoRuntimeWaitsForMastersThenWorkers installs a JindoRuntime's
// release and shows the controller waits for the master StatefulSet before
// the workers, and binds the Dataset once both are ready.
func TestJindoRuntimeWaitsForMastersThenWorkers(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	rt := createJindo(ctx, t, ns)
	master, worker := &appsv1.StatefulSet{}, &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs masters and workers and the runtime waits for the masters", func() bool {
		return env.Client.Get(ctx, key("logs-master"), master) == nil && env.Client.Get(ctx, key("logs-worker"), worker) == nil &&
			env.Client.Get(ctx, key("logs"), rt) == nil && readyReason(rt.Status.Conditions) == cacheruntime.ReasonMastersNotReady
	})
	markReady(t, worker)
	eventually(t, 10*time.Second, "ready workers do not bind while the masters are not ready", func() bool {
		return env.Client.Get(ctx, key("logs"), rt) == nil && rt.Status.WorkerNumberReady == 2 && readyReason(rt.Status.Conditions) == cacheruntime.ReasonMastersNotReady
	})
	markReady(t, master)
	ds := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset is Bound to the jindo runtime", func() bool {
		return env.Client.Get(ctx, key("logs"), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase &&
			len(ds.Status.Runtimes) == 1 && ds.Status.Runtimes[0].Type == "jindo"
	})
	eventually(t, 10*time.Second, "the runtime reports its masters", func() bool {
		return env.Client.Get(ctx, key("logs"), rt) == nil && rt.Status.MasterPhase == datav1alpha1.RuntimePhaseReady && *master.Spec.Replicas == rt.Status.MasterNumberReady
	})
}

// TestThinRuntimeStartsFromItsProfile shows a ThinRuntime waits, with a
// condition naming its missing ThinRuntimeProfile, until the profile is
// created; then its FUSE release is installed and the Dataset bound (no
// workers to wait for), with the profile's file-system type and FUSE
// cleanPolicy on the PV.
func TestThinRuntimeStartsFromItsProfile(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	ds := testobj.Dataset("share", ns, testobj.WithMounts("nfs://10.0.0.5/exports/share"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	profileName := "nfs-" + ns
	rt := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "share", Namespace: ns}, Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: profileName}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the runtime waits for its profile", func() bool {
		c := &metav1.Condition{}
		if env.Client.Get(ctx, key("share"), rt) == nil {
			c = meta.FindStatusCondition(rt.Status.Conditions, cacheruntime.ConditionReady)
		}
		return c != nil && c.Reason == thin.ReasonProfileNotFound && c.Status == metav1.ConditionFalse
	})
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: profileName}, Spec: datav1alpha1.ThinRuntimeProfileSpec{
		FileSystemType: "nfs",
		Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/nfs-fuse", ImageTag: "v1"},
			Command: []string{"/usr/local/bin/mount-nfs"}, CleanPolicy: datav1alpha1.OnDemandCleanPolicy},
	}}
	if err := env.Client.Create(ctx, profile); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, profile) })
	eventually(t, 20*time.Second, "the Dataset is Bound once the profile exists", func() bool {
		return env.Client.Get(ctx, key("share"), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	fuse := &appsv1.DaemonSet{}
	if err := env.Client.Get(ctx, key("share-fuse"), fuse); err != nil {
		t.Fatal(err)
	}
	if img := fuse.Spec.Template.Spec.Containers[0].Image; img != "registry.example.com/nfs-fuse:v1" {
		t.Errorf("FUSE image %q, want the profile's", img)
	}
	pv := &corev1.PersistentVolume{}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: pvName(ns, "share")}, pv); err != nil {
		t.Fatal(err)
	}
	if got := pv.Spec.CSI.VolumeAttributes[datav1alpha1.VolumeAttrMountType]; got != "nfs" {
		t.Errorf("PV mount_type %q, want the profile's fileSystemType", got)
	}
	if got := pv.Spec.CSI.VolumeAttributes[datav1alpha1.VolumeAttrFuseCleanPolicy]; got != string(datav1alpha1.OnDemandCleanPolicy) {
		t.Errorf("PV %s %q, want the profile's FUSE cleanPolicy (the runtime names none)", datav1alpha1.VolumeAttrFuseCleanPolicy, got)
	}
	if err := env.Client.Get(ctx, key("share-worker"), &appsv1.StatefulSet{}); err == nil {
		t.Error("a worker StatefulSet was installed though neither the runtime nor the profile enables workers")
	}
}

// TestThinProfileWorkersAreWaitedFor: workers enabled by the profile alone
// are installed and waited for before the Dataset is bound.
func TestThinProfileWorkersAreWaitedFor(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	ds := testobj.Dataset("web", ns, testobj.WithMounts("nfs://10.0.0.5/exports/web"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "cachefs-" + ns}, Spec: datav1alpha1.ThinRuntimeProfileSpec{
		FileSystemType: "cachefs",
		Fuse:           datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/cachefs", ImageTag: "v1"}},
		Worker: datav1alpha1.ThinCompTemplateSpec{Enabled: true,
			VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/cachefs-worker", ImageTag: "v1"}},
	}}
	if err := env.Client.Create(ctx, profile); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, profile) })
	rt := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: profile.Name, Replicas: 1}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	worker := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "the profile's workers are installed and waited for", func() bool {
		return env.Client.Get(ctx, key("web-worker"), worker) == nil &&
			env.Client.Get(ctx, key("web"), rt) == nil && readyReason(rt.Status.Conditions) == cacheruntime.ReasonWorkersNotReady
	})
	markReady(t, worker)
	eventually(t, 20*time.Second, "the Dataset is Bound once the workers are ready", func() bool {
		return env.Client.Get(ctx, key("web"), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
}
