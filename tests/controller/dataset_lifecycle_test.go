package controller_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/dataset"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// datasetDeleting returns the Dataset's Deleting condition, nil while it
// has none or the Dataset cannot be read.
func datasetDeleting(t *testing.T, key types.NamespacedName) *metav1.Condition {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(testenv.Context(t), key, ds); err != nil {
		return nil
	}
	return meta.FindStatusCondition(ds.Status.Conditions, dataset.ConditionDeleting)
}

// datasetEvents lists the events about a Dataset, one
// "<type> <reason>/<action>: <note>" line each.
func datasetEvents(t *testing.T, ns, name string) string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := env.Client.List(testenv.Context(t), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range list.Items {
		if e.Regarding.Kind == "Dataset" && e.Regarding.Name == name {
			b.WriteString(e.Type + " " + e.Reason + "/" + e.Action + ": " + e.Note + "\n")
		}
	}
	return b.String()
}

// setDatasetStatus changes the Dataset's status as stored, again on a
// conflict: the controller writes the Dataset too (its finalizer, its
// phase, its conditions).
func setDatasetStatus(t *testing.T, key types.NamespacedName, change func(*datav1alpha1.DatasetStatus)) {
	t.Helper()
	ctx := testenv.Context(t)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ds := &datav1alpha1.Dataset{}
		if err := env.Client.Get(ctx, key, ds); err != nil {
			return err
		}
		change(&ds.Status)
		return env.Client.Status().Update(ctx, ds)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// gone says whether the object is gone or being deleted (its finalizers
// may be run by a controller these tests do not run, e.g. the PVC
// protection controller).
func gone(t *testing.T, key types.NamespacedName, obj client.Object) bool {
	t.Helper()
	err := env.Client.Get(testenv.Context(t), key, obj)
	return apierrors.IsNotFound(err) || err == nil && !obj.GetDeletionTimestamp().IsZero()
}

// TestNewDatasetIsNotBoundAndNeverBoundDeletesAtOnce: a new Dataset gets
// phase NotBound, Ready=False (NotBound) and the Dataset finalizer; never
// bound, it is deleted at once.
func TestNewDatasetIsNotBoundAndNeverBoundDeletesAtOnce(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := types.NamespacedName{Namespace: ns, Name: "fresh"}
	ds := testobj.Dataset("fresh", ns)
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the Dataset is NotBound with the finalizer", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && ds.Status.Phase == datav1alpha1.NotBoundDatasetPhase &&
			controllerutil.ContainsFinalizer(ds, dataset.Finalizer)
	})
	if c := meta.FindStatusCondition(ds.Status.Conditions, "Ready"); c == nil || c.Status != metav1.ConditionFalse || c.Reason != dataset.ReasonNotBound {
		t.Fatalf("Ready = %+v", c)
	}
	if err := env.Client.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the never-bound Dataset is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key, &datav1alpha1.Dataset{}))
	})
}

// TestDatasetDeletionWaitsForPodsThenCascades deletes a bound Dataset
// while a Pod mounts its PVC: the deletion waits (Deleting=True, InUse,
// naming the Pod, and an event) and deletes nothing; once the Pod
// finishes, it deletes the runtime, whose cleanup removes the release, the
// PV, the PVC and the node labels (keyed by the Dataset's UID, as long
// names are: found only because the Dataset is still there), and then the
// Dataset goes.
func TestDatasetDeletionWaitsForPodsThenCascades(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	name := "a-dataset-whose-name-makes-uid-keyed-labels"
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	node := ns + "-cache"
	if err := env.Client.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}) })
	ds := testobj.Dataset(name, ns, testobj.WithMounts("juicefs:///data"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime(name, ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool { return env.Client.Get(ctx, key(name+"-worker"), sts) == nil })
	workerPod(t, sts, name+"-worker-0", node, true)
	markReady(t, sts)
	eventually(t, 20*time.Second, "the Dataset is Bound", func() bool {
		return env.Client.Get(ctx, key(name), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	uidKey := "fluid.io/s-h-juicefs-t-" + string(ds.UID)
	labelled := func() []string {
		n := &corev1.Node{}
		if err := env.Client.Get(ctx, types.NamespacedName{Name: node}, n); err != nil {
			t.Fatal(err)
		}
		var out []string
		for k := range n.Labels {
			if strings.Contains(k, string(ds.UID)) || strings.Contains(k, name) {
				out = append(out, k)
			}
		}
		return out
	}
	eventually(t, 20*time.Second, "the cache node carries the UID-keyed capacity label", func() bool {
		for _, k := range labelled() {
			if k == uidKey {
				return true
			}
		}
		return false
	})

	reader := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}}},
	}
	if err := env.Client.Create(ctx, reader); err != nil {
		t.Fatal(err)
	}
	reader.Status.Phase = corev1.PodRunning
	if err := env.Client.Status().Update(ctx, reader); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the Dataset's deletion waits InUse, naming the reader", func() bool {
		c := datasetDeleting(t, key(name))
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == dataset.ReasonInUse && strings.Contains(c.Message, "reader")
	})
	eventually(t, 5*time.Second, "an event says why", func() bool {
		return strings.Contains(datasetEvents(t, ns, name), "Warning InUse/Delete: deletion waits: Pods use the Dataset: reader")
	})
	time.Sleep(time.Second) // anything that would wrongly follow
	if err := env.Client.Get(ctx, key(name), rt); err != nil || !rt.DeletionTimestamp.IsZero() {
		t.Fatalf("the runtime was deleted while a Pod used the Dataset: %v, deleting %v", err, rt.DeletionTimestamp)
	}
	if err := env.Client.Get(ctx, key(name), &corev1.PersistentVolumeClaim{}); err != nil {
		t.Fatalf("the PVC went while a Pod used it: %v", err)
	}

	// The Pod finishes (no kubelet runs: its status says so).
	reader.Status.Phase = corev1.PodSucceeded
	if err := env.Client.Status().Update(ctx, reader); err != nil {
		t.Fatal(err)
	}
	// Woken by the Pod, well before the 10 s recheck; the runtime's
	// cleanup then takes its own reconciles.
	eventually(t, 20*time.Second, "the Dataset is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key(name), &datav1alpha1.Dataset{}))
	})
	if !apierrors.IsNotFound(env.Client.Get(ctx, key(name), &datav1alpha1.JuiceFSRuntime{})) {
		t.Error("the Dataset went before its runtime")
	}
	if err := env.Client.Get(ctx, key(name+"-worker"), sts); !apierrors.IsNotFound(err) {
		t.Errorf("the release's workers were left behind: %v", err)
	}
	releases := &corev1.SecretList{}
	if err := env.Client.List(ctx, releases, client.InNamespace(ns), client.MatchingLabels{"owner": "helm", "name": name}); err != nil {
		t.Fatal(err)
	} else if len(releases.Items) > 0 {
		t.Errorf("%d Helm release records were left behind", len(releases.Items))
	}
	if !gone(t, key(name), &corev1.PersistentVolumeClaim{}) {
		t.Error("the PVC was left behind")
	}
	if !gone(t, types.NamespacedName{Name: pvName(ns, name)}, &corev1.PersistentVolume{}) {
		t.Error("the PV was left behind")
	}
	if left := labelled(); len(left) > 0 {
		t.Errorf("node labels of the Dataset were left behind: %v", left)
	}
	notes := datasetEvents(t, ns, name)
	if !strings.Contains(notes, "Normal RuntimeDeleting/Delete: deletion waits for juicefs runtime "+name) {
		t.Errorf("no event says the deletion waited for the runtime; events:\n%s", notes)
	}
}

// TestDatasetDeletionWaitsForReferenceDatasets: a Dataset that reference
// datasets mount (status.datasetRef) waits, naming them, until none does.
// The reference dataset exists (an entry naming none is forgotten:
// TestAGoneReferenceHoldsNoDeletion).
func TestDatasetDeletionWaitsForReferenceDatasets(t *testing.T) {
	t.Parallel()
	ns, other := env.Namespace(t), env.Namespace(t)
	ctx := testenv.Context(t)
	key := types.NamespacedName{Namespace: ns, Name: "shared"}
	if err := env.Client.Create(ctx, testobj.Dataset("shared-ref", other)); err != nil {
		t.Fatal(err)
	}
	refName := other + "/shared-ref"
	ds := testobj.Dataset("shared", ns)
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the Dataset has its finalizer and phase", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && controllerutil.ContainsFinalizer(ds, dataset.Finalizer) && ds.Status.Phase != ""
	})
	setDatasetStatus(t, key, func(s *datav1alpha1.DatasetStatus) { s.DatasetRef = []string{refName} })
	if err := env.Client.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the deletion waits Referenced, naming the reference dataset", func() bool {
		c := datasetDeleting(t, key)
		return c != nil && c.Reason == dataset.ReasonReferenced && strings.Contains(c.Message, refName)
	})
	time.Sleep(time.Second)
	if err := env.Client.Get(ctx, key, ds); err != nil {
		t.Fatalf("the Dataset went while a reference dataset mounted it: %v", err)
	}
	setDatasetStatus(t, key, func(s *datav1alpha1.DatasetStatus) { s.DatasetRef = nil })
	eventually(t, 5*time.Second, "the Dataset is gone once no reference dataset mounts it", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key, &datav1alpha1.Dataset{}))
	})
}

// TestDatasetDeletionTouchesOnlyItsOwnRuntime: a deleted Dataset whose
// status lists a runtime of its name that is already gone, one of a type
// without engine, and one of another name, goes at once: it waits for
// none of them and deletes only what is bound to it (nothing, here).
func TestDatasetDeletionTouchesOnlyItsOwnRuntime(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := types.NamespacedName{Namespace: ns, Name: "solo"}
	other := testobj.JuiceFSRuntime("other", ns, 1)
	if err := env.Client.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	ds := testobj.Dataset("solo", ns)
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the Dataset has its finalizer", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && controllerutil.ContainsFinalizer(ds, dataset.Finalizer)
	})
	setDatasetStatus(t, key, func(s *datav1alpha1.DatasetStatus) {
		s.Phase = datav1alpha1.BoundDatasetPhase
		s.Runtimes = []datav1alpha1.Runtime{
			{Name: "solo", Namespace: ns, Type: "juicefs"}, // gone already
			{Name: "solo", Namespace: ns, Type: "ceph"},    // no such engine
			{Name: "other", Namespace: ns, Type: "juicefs"},
		}
	})
	if err := env.Client.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the Dataset is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key, &datav1alpha1.Dataset{}))
	})
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(other), other); err != nil || !other.DeletionTimestamp.IsZero() {
		t.Fatalf("a runtime not bound to the Dataset was deleted: %v, deleting %v", err, other.DeletionTimestamp)
	}
	eventually(t, 5*time.Second, "an event says the runtime of an unknown type is not waited for", func() bool {
		return strings.Contains(datasetEvents(t, ns, "solo"), "Warning UnknownRuntime/Delete: the Dataset is bound to ceph runtime solo")
	})
}
