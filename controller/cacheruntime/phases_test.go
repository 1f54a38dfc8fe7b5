package cacheruntime

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines/fake"
)

// TestPhasesWithMasters walks a runtime whose engine runs masters and
// workers through the reconciler's phases with the fake engine: masters
// are waited for before workers, and only then is the Dataset bound. (The
// same phases against the real apiserver are in tests/controller.)
func TestPhasesWithMasters(t *testing.T) {
	ctx := context.Background()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", UID: "u1"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b", Name: "b"}}}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 2}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).
		WithStatusSubresource(&datav1alpha1.Dataset{}, &datav1alpha1.AlluxioRuntime{}).
		WithObjects(ds, rt, node).Build()
	hc := helm.NewMemoryClient("n", nil)
	r := &Reconciler{
		Client: c,
		Engine: fake.Engine{Master: true}, Helm: func(string) (*helm.Client, error) { return hc, nil },
	}
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "n", Name: "d"}}
	ready := func() *metav1.Condition {
		t.Helper()
		if _, err := r.Reconcile(ctx, req); err != nil {
			t.Fatal(err)
		}
		got := &datav1alpha1.AlluxioRuntime{}
		if err := c.Get(ctx, req.NamespacedName, got); err != nil {
			t.Fatal(err)
		}
		rt = got
		return meta.FindStatusCondition(got.Status.Conditions, ConditionReady)
	}

	// The reconcile that installs the release leaves the status to the
	// next, which observes the release's workloads.
	if cond := ready(); cond != nil {
		t.Fatalf("status written by the install: %+v", cond)
	}
	if rel, err := hc.Latest("d"); err != nil || rel == nil {
		t.Fatalf("the release was not installed: %v", err)
	}
	if cond := ready(); cond.Reason != ReasonMastersNotReady || rt.Status.MasterPhase != datav1alpha1.RuntimePhaseNotReady {
		t.Fatalf("without masters: %+v, master phase %q", cond, rt.Status.MasterPhase)
	}
	sts := func(name string, replicas, ready int32) {
		t.Helper()
		s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: name},
			Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": name}}}}
		if err := c.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		s.Status = appsv1.StatefulSetStatus{Replicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready}
		if err := c.Status().Update(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	sts("d-master", 1, 1)
	if cond := ready(); cond.Reason != ReasonWorkersNotReady || rt.Status.MasterPhase != datav1alpha1.RuntimePhaseReady || rt.Status.MasterNumberReady != 1 {
		t.Fatalf("masters ready, workers missing: %+v, status %+v", cond, rt.Status)
	}
	sts("d-worker", 2, 2)
	fuse := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "d-fuse"}}
	if err := c.Create(ctx, fuse); err != nil {
		t.Fatal(err)
	}
	fuse.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 1}
	if err := c.Status().Update(ctx, fuse); err != nil {
		t.Fatal(err)
	}
	cond := ready()
	if cond.Status != metav1.ConditionTrue || cond.Reason != ReasonBound {
		t.Fatalf("everything ready: %+v", cond)
	}
	s := rt.Status
	if s.WorkerNumberReady != 2 || s.WorkerPhase != datav1alpha1.RuntimePhaseReady || s.Selector != "role=d-worker" ||
		s.DesiredFuseNumberScheduled != 3 || s.FuseNumberReady != 1 || s.FusePhase != datav1alpha1.RuntimePhasePartialReady {
		t.Errorf("status counts: %+v", s)
	}
	got := &datav1alpha1.Dataset{}
	if err := c.Get(ctx, req.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != datav1alpha1.BoundDatasetPhase || len(got.Status.Runtimes) != 1 || got.Status.Runtimes[0].Type != "fake" {
		t.Errorf("dataset status: %+v", got.Status)
	}
	pv := &corev1.PersistentVolume{}
	if err := c.Get(ctx, types.NamespacedName{Name: "n-d"}, pv); err != nil {
		t.Fatal(err)
	}
	if a := pv.Spec.CSI.VolumeAttributes; a[datav1alpha1.VolumeAttrMountType] != "fuse.fake" || a[datav1alpha1.VolumeAttrFluidPath] != fake.FusePath("n", "d") {
		t.Errorf("PV attributes: %v", a)
	}
}
