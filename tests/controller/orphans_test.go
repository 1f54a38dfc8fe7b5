package controller_test

import (
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestOrphansOfAStrippedRuntimeAreSwept (reliability audit N8): a tenant
// removes the finalizers of a bound runtime and its Dataset and deletes
// both, so the runtime's deletion never cleans up. Within a few sweep
// periods (gcPeriod) the controller's orphan sweep removes what it had
// created for the runtime: the FUSE record in its own namespace, the node
// cache labels (with the exclusive label and dataset-num) and, once no
// Pod uses the Dataset any more, its PVC and PV. PodTemplates, PVs and
// node labels that only look like Sluice's stay.
func TestOrphansOfAStrippedRuntimeAreSwept(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	node := ns + "-cache"
	lookAlikes := map[string]string{
		// A cache label and a capacity label without the runtime-type
		// label the controller writes with them, and a runtime-type label
		// that is not "true".
		"fluid.io/s-" + ns + "-ghost":               "true",
		"fluid.io/s-h-juicefs-t-" + ns + "-ghost":   "1GiB",
		"fluid.io/s-juicefs-" + ns + "-ghost-other": "yes",
	}
	if err := env.Client.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node, Labels: lookAlikes}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}) })

	ds := testobj.Dataset("logs", ns, testobj.WithMounts("juicefs:///logs"))
	ds.Spec.Placement = datav1alpha1.ExclusiveMode
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("logs", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool { return env.Client.Get(ctx, key("logs-worker"), sts) == nil })
	workerPod(t, sts, "logs-worker-0", node, true)
	markReady(t, sts)
	eventually(t, 20*time.Second, "the Dataset is Bound", func() bool {
		return env.Client.Get(ctx, key("logs"), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	dsKey := datav1alpha1.KeyOf(ds)
	ours := []string{dsKey.CacheLabelKey(), dsKey.RuntimeCacheLabelKey("juicefs"), dsKey.CapacityLabelKey("juicefs", datav1alpha1.TotalCapacity), datav1alpha1.LabelExclusive}
	nodeLabels := func() map[string]string {
		n := &corev1.Node{}
		if err := env.Client.Get(ctx, types.NamespacedName{Name: node}, n); err != nil {
			t.Fatal(err)
		}
		return n.Labels
	}
	eventually(t, 20*time.Second, "the cache node carries the runtime's labels", func() bool {
		l := nodeLabels()
		return !slices.ContainsFunc(ours, func(k string) bool { _, ok := l[k]; return !ok })
	})
	recordKey := types.NamespacedName{Namespace: fuseRecords, Name: datav1alpha1.FuseRecordName(rt.UID)}
	pvKey := types.NamespacedName{Name: pvName(ns, "logs")}
	eventually(t, 20*time.Second, "the FUSE record, PVC and PV exist", func() bool {
		return env.Client.Get(ctx, recordKey, &corev1.PodTemplate{}) == nil && env.Client.Get(ctx, key("logs"), &corev1.PersistentVolumeClaim{}) == nil &&
			env.Client.Get(ctx, pvKey, &corev1.PersistentVolume{}) == nil
	})
	foreign := foreignLookAlikes(t, ns)
	reader := readerOf(ns, "reader", "logs", node)
	if err := env.Client.Create(ctx, reader); err != nil {
		t.Fatal(err)
	}
	reader.Status.Phase = corev1.PodRunning
	if err := env.Client.Status().Update(ctx, reader); err != nil {
		t.Fatal(err)
	}

	// The tenant strips the finalizers and deletes both. The controller
	// may put its finalizer back between the two writes (it does on an
	// object not being deleted), so the tenant strips it again once the
	// object is being deleted, when nobody can add one.
	strip := func(obj client.Object) error {
		return client.IgnoreNotFound(env.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))))
	}
	for _, obj := range []client.Object{rt, ds} {
		if err := strip(obj); err != nil {
			t.Fatal(err)
		}
		if err := client.IgnoreNotFound(env.Client.Delete(ctx, obj)); err != nil {
			t.Fatal(err)
		}
		if err := strip(obj); err != nil {
			t.Fatal(err)
		}
	}
	if !apierrors.IsNotFound(env.Client.Get(ctx, key("logs"), &datav1alpha1.JuiceFSRuntime{})) {
		t.Fatal("the runtime without finalizer is still there")
	}

	within := 10 * gcPeriod
	eventually(t, within, "the FUSE record of the gone runtime is deleted", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, recordKey, &corev1.PodTemplate{}))
	})
	eventually(t, within, "the gone runtime's node labels are removed", func() bool {
		l := nodeLabels()
		return !slices.ContainsFunc(ours, func(k string) bool { _, ok := l[k]; return ok })
	})
	if l := nodeLabels(); l[datav1alpha1.LabelDatasetNum] != "1" {
		t.Errorf("dataset-num = %q, want 1 (the look-alike capacity label's)", l[datav1alpha1.LabelDatasetNum])
	}
	// A Pod still uses the Dataset: its volumes stay, as a runtime's
	// deletion waits for such Pods.
	time.Sleep(3 * gcPeriod)
	if err := env.Client.Get(ctx, pvKey, &corev1.PersistentVolume{}); err != nil {
		t.Fatalf("the PV went while a Pod used the Dataset: %v", err)
	}
	reader.Status.Phase = corev1.PodSucceeded
	if err := env.Client.Status().Update(ctx, reader); err != nil {
		t.Fatal(err)
	}
	eventually(t, within, "the PVC and PV go once no Pod uses the Dataset", func() bool {
		return gone(t, key("logs"), &corev1.PersistentVolumeClaim{}) && gone(t, pvKey, &corev1.PersistentVolume{})
	})

	l := nodeLabels()
	for k, v := range lookAlikes {
		if l[k] != v {
			t.Errorf("look-alike node label %s = %q, want %q", k, l[k], v)
		}
	}
	for _, obj := range foreign {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil || obj.GetDeletionTimestamp() != nil {
			t.Errorf("look-alike %T %s: %v (deleting: %v)", obj, obj.GetName(), err, obj.GetDeletionTimestamp())
		}
	}
}

// foreignLookAlikes creates objects that look like the controller's for a
// runtime that does not exist, but lack one of the marks of its own: FUSE
// records not labelled or not managed by Sluice, or naming no runtime, and
// PVs of Datasets without runtime that Sluice did not create (ghost) or
// of another CSI driver (ghost2).
func foreignLookAlikes(t *testing.T, ns string) []client.Object {
	t.Helper()
	ctx := testenv.Context(t)
	ghost := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ghost", UID: types.UID(ns + "-ghost-uid")}}
	tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "fuse", Image: "busybox"}}}}
	unlabelled := datav1alpha1.FuseRecord(fuseRecords, ghost, tmpl)
	unlabelled.Name += "-unlabelled"
	delete(unlabelled.Labels, datav1alpha1.LabelFuseRecord)
	theirs := datav1alpha1.FuseRecord(fuseRecords, ghost, tmpl)
	theirs.Name += "-theirs"
	theirs.Labels["app.kubernetes.io/managed-by"] = "Helm"
	anonymous := datav1alpha1.FuseRecord(fuseRecords, ghost, tmpl)
	anonymous.Name += "-anonymous"
	delete(anonymous.Annotations, datav1alpha1.AnnotationFuseRecordRuntime)
	objs := []client.Object{unlabelled, theirs, anonymous}

	// PVs under the names Sluice would give Datasets ghost and ghost2's.
	pv := func(dataset, driver string, annotations map[string]string) *corev1.PersistentVolume {
		ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: dataset}}
		name := volume.Name(ds)
		return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: volume.Labels(ds), Annotations: annotations},
			Spec: corev1.PersistentVolumeSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany},
				Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: name}}}}
	}
	objs = append(objs,
		pv("ghost", datav1alpha1.CSIDriverName, nil),
		pv("ghost2", "other.csi.example.com", map[string]string{datav1alpha1.AnnotationCreatedBy: volume.CreatedBy}))
	for _, o := range objs {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	return objs
}
