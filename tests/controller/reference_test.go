package controller_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/dataset"
	"github.com/sluice-data/sluice/controller/reference"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// referenced creates in ns a Dataset and its JuiceFSRuntime whose FUSE
// mounts the ConfigMap "<name>-extra" (spec.volumes), and waits until the
// Dataset is Bound.
func referenced(ctx context.Context, t *testing.T, ns, name string) *datav1alpha1.Dataset {
	t.Helper()
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-extra"}, Data: map[string]string{"conf": "v1"}}
	if err := env.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, testobj.Dataset(name, ns, testobj.WithMounts("juicefs:///"+name))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime(name, ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	rt.Spec.Volumes = []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}}}
	rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/etc/extra"}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool { return env.Client.Get(ctx, key(name+"-worker"), sts) == nil })
	markReady(t, sts)
	ds := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the referenced Dataset is Bound", func() bool {
		return env.Client.Get(ctx, key(name), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	return ds
}

// boundReference creates the reference dataset ns/name of mount and waits
// until it is Bound.
func boundReference(ctx context.Context, t *testing.T, ns, name, mount string) *datav1alpha1.Dataset {
	t.Helper()
	ds := testobj.Dataset(name, ns, testobj.WithMounts(mount))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the reference dataset is Bound", func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(ds), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	return ds
}

func thinCondition(ctx context.Context, key types.NamespacedName, typ string) *metav1.Condition {
	rt := &datav1alpha1.ThinRuntime{}
	if env.Client.Get(ctx, key, rt) != nil {
		return nil
	}
	return meta.FindStatusCondition(rt.Status.Conditions, typ)
}

// TestReferenceDatasetSharesTheReferencedCache: a Dataset in a second
// namespace whose one mount is dataset://<ns>/<name>/train gets a
// ThinRuntime (owned by it, without profile), is recorded in the
// referenced Dataset's status.datasetRef, and is Bound on the referenced
// FUSE mount with the sub-path: its PV in its own namespace carries the
// referenced PV's fluid_path, FUSE label and runtime; the ConfigMap the
// referenced runtime mounts through spec.volumes is not copied into its
// namespace (audit N7: no sidecar of that namespace reads it); the runtime
// reports the referenced runtime's phases. Deleting the referenced
// Dataset waits (Referenced) while the reference exists; deleting the
// reference removes its PV, PVC, copy and the datasetRef entry, after
// which the referenced Dataset's deletion goes on.
func TestReferenceDatasetSharesTheReferencedCache(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	nsA, nsB := env.Namespace(t), env.Namespace(t)
	phy := referenced(ctx, t, nsA, "phy")
	refKey := types.NamespacedName{Namespace: nsB, Name: "refdemo"}
	ref := boundReference(ctx, t, nsB, "refdemo", "dataset://"+nsA+"/phy/train")

	rt := &datav1alpha1.ThinRuntime{}
	if err := env.Client.Get(ctx, refKey, rt); err != nil {
		t.Fatalf("the reference dataset's ThinRuntime: %v", err)
	}
	if owner := metav1.GetControllerOf(rt); rt.Spec.ProfileName != "" || owner == nil || owner.UID != ref.UID || owner.Kind != "Dataset" {
		t.Errorf("the ThinRuntime is not a profile-less runtime owned by its Dataset: profile %q, owner %+v", rt.Spec.ProfileName, owner)
	}
	if want := []datav1alpha1.Runtime{{Name: "refdemo", Namespace: nsB, Type: "thin", Category: datav1alpha1.AccelerateCategory}}; !slices.Equal(ref.Status.Runtimes, want) {
		t.Errorf("status.runtimes = %+v, want %+v", ref.Status.Runtimes, want)
	}
	eventually(t, 10*time.Second, "the referenced Dataset lists the reference in status.datasetRef", func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(phy), phy) == nil && slices.Equal(phy.Status.DatasetRef, []string{nsB + "/refdemo"})
	})

	physPV, refPV, pvc := &corev1.PersistentVolume{}, &corev1.PersistentVolume{}, &corev1.PersistentVolumeClaim{}
	for key, obj := range map[types.NamespacedName]client.Object{{Name: pvName(nsA, "phy")}: physPV, {Name: pvName(nsB, "refdemo")}: refPV, refKey: pvc} {
		if err := env.Client.Get(ctx, key, obj); err != nil {
			t.Fatalf("%T %s: %v", obj, key, err)
		}
	}
	pa, ra := physPV.Spec.CSI.VolumeAttributes, refPV.Spec.CSI.VolumeAttributes
	for _, k := range []string{datav1alpha1.VolumeAttrFluidPath, datav1alpha1.VolumeAttrMountType, datav1alpha1.VolumeAttrNodeSelectorKey,
		datav1alpha1.VolumeAttrRuntimeNamespace, datav1alpha1.VolumeAttrRuntimeName} {
		if ra[k] != pa[k] || ra[k] == "" {
			t.Errorf("the reference PV's %s is %q, want the referenced PV's %q", k, ra[k], pa[k])
		}
	}
	if ra[datav1alpha1.VolumeAttrSubPath] != "train" || ra[datav1alpha1.VolumeAttrNodeSelectorKey] != datav1alpha1.KeyOf(phy).FuseLabelKey() {
		t.Errorf("the reference PV's sub-path and FUSE label: %v", ra)
	}
	if pvc.Spec.VolumeName != refPV.Name || pvc.Labels[datav1alpha1.LabelDatasetName] != "refdemo" || refPV.Spec.ClaimRef.Namespace != nsB {
		t.Errorf("PVC %+v / PV claimRef %+v", pvc.ObjectMeta, refPV.Spec.ClaimRef)
	}

	// The ConfigMap the referenced runtime mounts through its own
	// spec.volumes reaches no sidecar of nsB's (audit N7): it is not
	// copied there (TestAReferenceOfAnAlluxioDataset copies the engine's).
	copyKey := types.NamespacedName{Namespace: nsB, Name: datav1alpha1.ReferenceCopyName("refdemo", "phy-extra")}
	neverCopied(ctx, t, copyKey, refKey)

	eventually(t, 10*time.Second, "the reference runtime is Ready with the referenced runtime's phases", func() bool {
		c := thinCondition(ctx, refKey, reference.ConditionReady)
		jfs := &datav1alpha1.JuiceFSRuntime{}
		return c != nil && c.Status == metav1.ConditionTrue && env.Client.Get(ctx, refKey, rt) == nil &&
			env.Client.Get(ctx, client.ObjectKeyFromObject(phy), jfs) == nil && rt.Status.WorkerPhase == jfs.Status.WorkerPhase && rt.Status.WorkerPhase != ""
	})

	// The referenced Dataset waits for the reference.
	if err := env.Client.Delete(ctx, phy); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the referenced Dataset's deletion waits, naming the reference", func() bool {
		c := datasetDeleting(t, client.ObjectKeyFromObject(phy))
		return c != nil && c.Reason == dataset.ReasonReferenced && strings.Contains(c.Message, nsB+"/refdemo")
	})
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(phy), &datav1alpha1.JuiceFSRuntime{}); err != nil {
		t.Fatalf("the referenced runtime went while a reference mounts its Dataset: %v", err)
	}

	if err := env.Client.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the reference dataset, its runtime, volumes and copy are gone", func() bool {
		return gone(t, refKey, &datav1alpha1.Dataset{}) && gone(t, refKey, &datav1alpha1.ThinRuntime{}) && gone(t, refKey, &corev1.PersistentVolumeClaim{}) &&
			gone(t, types.NamespacedName{Name: nsB + "-refdemo"}, &corev1.PersistentVolume{}) && gone(t, copyKey, &corev1.ConfigMap{})
	})
	eventually(t, 30*time.Second, "then the referenced Dataset and its runtime go", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(phy), &datav1alpha1.Dataset{})) &&
			apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(phy), &datav1alpha1.JuiceFSRuntime{}))
	})
}

// TestAReferenceOutlivesAForcedReferencedDataset: the referenced Dataset,
// deleted with data.sluice.io/force-delete, goes although a reference
// dataset mounts it; the reference dataset becomes NotBound with a
// condition naming it, and its own deletion is not held by it.
func TestAReferenceOutlivesAForcedReferencedDataset(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	nsA, nsB := env.Namespace(t), env.Namespace(t)
	phy := referenced(ctx, t, nsA, "phy")
	refKey := types.NamespacedName{Namespace: nsB, Name: "orphan"}
	ref := boundReference(ctx, t, nsB, "orphan", "dataset://"+nsA+"/phy")

	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(phy), phy); err != nil {
			return err
		}
		phy.Annotations = map[string]string{datav1alpha1.AnnotationForceDelete: "true"}
		return env.Client.Update(ctx, phy)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, phy); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the forced Dataset is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(phy), &datav1alpha1.Dataset{}))
	})
	if !strings.Contains(datasetEvents(t, nsA, "phy"), "reference datasets mount the Dataset") {
		t.Errorf("no event says the forced deletion went on despite the reference; events:\n%s", datasetEvents(t, nsA, "phy"))
	}
	eventually(t, 15*time.Second, "the reference dataset is NotBound, saying why", func() bool {
		if env.Client.Get(ctx, refKey, ref) != nil || ref.Status.Phase != datav1alpha1.NotBoundDatasetPhase {
			return false
		}
		c := meta.FindStatusCondition(ref.Status.Conditions, "Ready")
		rc := thinCondition(ctx, refKey, reference.ConditionReferenceAvailable)
		return c != nil && c.Reason == reference.ReasonReferencedDatasetNotFound && strings.Contains(c.Message, nsA+"/phy") &&
			rc != nil && rc.Status == metav1.ConditionFalse
	})
	if err := env.Client.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the reference dataset and its volumes go", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, refKey, &datav1alpha1.Dataset{})) && gone(t, refKey, &corev1.PersistentVolumeClaim{}) &&
			gone(t, types.NamespacedName{Name: nsB + "-orphan"}, &corev1.PersistentVolume{})
	})
}

// TestReferenceRuntimesRefuseWhatTheyCannotServe: a ThinRuntime without
// spec.profileName whose Dataset is not a reference dataset, and a
// JuiceFSRuntime of a reference dataset, each say so in a condition and
// install nothing.
func TestReferenceRuntimesRefuseWhatTheyCannotServe(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	if err := env.Client.Create(ctx, testobj.Dataset("plain", ns, testobj.WithMounts("s3://bucket/plain"))); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "plain"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the profile-less ThinRuntime says its Dataset is not a reference dataset", func() bool {
		c := thinCondition(ctx, types.NamespacedName{Namespace: ns, Name: "plain"}, reference.ConditionDatasetAvailable)
		return c != nil && c.Reason == reference.ReasonInvalidSpec && strings.Contains(c.Message, "spec.profileName")
	})

	jfs := testobj.JuiceFSRuntime("ref", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, jfs); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, testobj.Dataset("ref", ns, testobj.WithMounts("dataset://"+ns+"/plain"))); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the JuiceFSRuntime of a reference dataset reports InvalidSpec", func() bool {
		if env.Client.Get(ctx, client.ObjectKeyFromObject(jfs), jfs) != nil {
			return false
		}
		c := meta.FindStatusCondition(jfs.Status.Conditions, "EngineInstalled")
		return c != nil && c.Reason == "InvalidSpec" && strings.Contains(c.Message, "reference dataset")
	})
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "ref-worker"}, &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
		t.Errorf("a release was installed for the reference dataset's JuiceFSRuntime: %v", err)
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "ref"}, &datav1alpha1.ThinRuntime{}); !apierrors.IsNotFound(err) {
		t.Errorf("a ThinRuntime was created beside the reference dataset's JuiceFSRuntime: %v", err)
	}
}

// TestAGoneReferenceHoldsNoDeletion: a status.datasetRef entry whose
// reference dataset and runtime are both gone is forgotten, and the
// Dataset's deletion goes on.
func TestAGoneReferenceHoldsNoDeletion(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	key := types.NamespacedName{Namespace: ns, Name: "shared"}
	ds := testobj.Dataset("shared", ns)
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the Dataset has its phase", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && ds.Status.Phase != ""
	})
	setDatasetStatus(t, key, func(s *datav1alpha1.DatasetStatus) { s.DatasetRef = []string{"no-such-namespace/gone"} })
	if err := env.Client.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the Dataset is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key, &datav1alpha1.Dataset{}))
	})
}

// TestAReferenceOfAnAlluxioDataset: the reference dataset of an Alluxio
// Dataset binds on the Alluxio FUSE mount as on JuiceFS's: its PV carries
// the referenced PV's fluid_path, mount type, FUSE label and runtime, with
// the sub-path, and its runtime reports the Alluxio runtime's phases. The
// engine's own ConfigMap, which the FUSE record mounts, is copied into the
// reference dataset's namespace, owned by it, and follows its source.
func TestAReferenceOfAnAlluxioDataset(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	nsA, nsB := env.Namespace(t), env.Namespace(t)
	createAlluxio(t, nsA, "coco", nil)
	phy := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Alluxio Dataset is Bound", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: nsA, Name: "coco"}, phy) == nil && phy.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	refKey := types.NamespacedName{Namespace: nsB, Name: "coco-ref"}
	boundReference(ctx, t, nsB, "coco-ref", "dataset://"+nsA+"/coco/val")

	physPV, refPV := &corev1.PersistentVolume{}, &corev1.PersistentVolume{}
	for name, pv := range map[string]*corev1.PersistentVolume{pvName(nsA, "coco"): physPV, pvName(nsB, "coco-ref"): refPV} {
		if err := env.Client.Get(ctx, types.NamespacedName{Name: name}, pv); err != nil {
			t.Fatalf("PV %s: %v", name, err)
		}
	}
	pa, ra := physPV.Spec.CSI.VolumeAttributes, refPV.Spec.CSI.VolumeAttributes
	for _, k := range []string{datav1alpha1.VolumeAttrFluidPath, datav1alpha1.VolumeAttrMountType, datav1alpha1.VolumeAttrNodeSelectorKey,
		datav1alpha1.VolumeAttrRuntimeNamespace, datav1alpha1.VolumeAttrRuntimeName} {
		if ra[k] != pa[k] || ra[k] == "" {
			t.Errorf("the reference PV's %s is %q, want the Alluxio PV's %q", k, ra[k], pa[k])
		}
	}
	if ra[datav1alpha1.VolumeAttrSubPath] != "val" || !strings.Contains(ra[datav1alpha1.VolumeAttrFluidPath], "/alluxio/") {
		t.Errorf("the reference PV's sub-path and FUSE path: %v", ra)
	}
	rt := &datav1alpha1.ThinRuntime{}
	eventually(t, 10*time.Second, "the reference runtime is Ready with the Alluxio runtime's phases", func() bool {
		c := thinCondition(ctx, refKey, reference.ConditionReady)
		alx := &datav1alpha1.AlluxioRuntime{}
		return c != nil && c.Status == metav1.ConditionTrue && env.Client.Get(ctx, refKey, rt) == nil &&
			env.Client.Get(ctx, client.ObjectKeyFromObject(phy), alx) == nil && rt.Status.WorkerPhase == alx.Status.WorkerPhase && rt.Status.WorkerPhase != ""
	})

	copyKey := types.NamespacedName{Namespace: nsB, Name: datav1alpha1.ReferenceCopyName("coco-ref", "coco-config")}
	cm := &corev1.ConfigMap{}
	eventually(t, 20*time.Second, "the ConfigMap the FUSE record reads is copied", func() bool {
		return env.Client.Get(ctx, copyKey, cm) == nil && len(cm.Data) > 0
	})
	if owner := metav1.GetControllerOf(cm); owner == nil || owner.Name != "coco-ref" || owner.Kind != "Dataset" {
		t.Errorf("the copy is not owned by the reference dataset: %+v", cm.OwnerReferences)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		src := &corev1.ConfigMap{}
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: nsA, Name: "coco-config"}, src); err != nil {
			return err
		}
		src.Data["extra.properties"] = "v2"
		return env.Client.Update(ctx, src)
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the copy follows its source", func() bool {
		return env.Client.Get(ctx, copyKey, cm) == nil && cm.Data["extra.properties"] == "v2"
	})
}

// neverCopied waits for the reference runtime key to be Ready (its copies
// made) and then checks for a while that the ConfigMap copy does not
// appear.
func neverCopied(ctx context.Context, t *testing.T, copyKey, key types.NamespacedName) {
	t.Helper()
	eventually(t, 20*time.Second, "the reference runtime is Ready", func() bool {
		c := thinCondition(ctx, key, reference.ConditionReady)
		return c != nil && c.Status == metav1.ConditionTrue
	})
	for end := time.Now().Add(testenv.Stretch(3 * time.Second)); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if err := env.Client.Get(ctx, copyKey, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
			t.Fatalf("ConfigMap %s: want none (not copied), got %v", copyKey, err)
		}
	}
}
