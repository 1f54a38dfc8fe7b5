package cacheruntime

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines/fake"
)

// TestCacheBehindOwnWrites: reconciles that read the runtime from a cache
// which does not show the reconciler's last status write yet (the write's
// event is still on its way, while a workload's event woke the runtime)
// work from the runtime that write returned. The status change they make
// is written at once, with no patch refused and no live read; a reconcile
// with nothing new to say writes nothing; Ready's transition is announced
// once.
func TestCacheBehindOwnWrites(t *testing.T) {
	ctx := context.Background()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b", Name: "b"}}}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", UID: "rt-1"}, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 1}}
	key := types.NamespacedName{Namespace: "n", Name: "d"}
	var stale *datav1alpha1.AlluxioRuntime
	var writes patches
	c, api := laggingAPI(ds, rt, &stale, &writes)
	live := &countingReader{Reader: api}
	recorder := events.NewFakeRecorder(10)
	hc := helm.NewMemoryClient("n", nil)
	r := &Reconciler{Client: c, Live: live, Engine: fake.Engine{}, Events: recorder,
		Helm: func(string) (*helm.Client, error) { return hc, nil }}
	reconcile := func(what string, wantWrites int) {
		t.Helper()
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if writes.accepted != wantWrites || writes.refused != 0 || live.gets != 0 {
			t.Fatalf("%s: %d status writes, %d refused, %d live reads; want %d, 0 and 0", what, writes.accepted, writes.refused, live.gets, wantWrites)
		}
	}
	reconcile("installs", 0)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "d-worker"},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "d-worker"}}}}
	if err := c.Create(ctx, sts); err != nil {
		t.Fatal(err)
	}
	installed := &datav1alpha1.AlluxioRuntime{}
	if err := api.Get(ctx, key, installed); err != nil {
		t.Fatal(err)
	}
	reconcile("waits for the worker", 1)

	// From now on the cache shows the runtime as it was before that write.
	stale = installed
	sts.Status = appsv1.StatefulSetStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if err := c.Status().Update(ctx, sts); err != nil {
		t.Fatal(err)
	}
	reconcile("the worker is ready, the cache lags", 2)
	reconcile("again, the cache still lags", 2)
	stale = nil
	reconcile("the cache caught up", 2)

	got := &datav1alpha1.AlluxioRuntime{}
	if err := api.Get(ctx, key, got); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(got.Status.Conditions, ConditionReady); cond == nil || cond.Reason != ReasonBound {
		t.Fatalf("stored condition %+v, want Bound", cond)
	}
	if got.Status.WorkerNumberUnavailable != 0 || got.Status.WorkerNumberReady != 1 {
		t.Errorf("stored status: %d workers unavailable, %d ready; want 0 and 1", got.Status.WorkerNumberUnavailable, got.Status.WorkerNumberReady)
	}
	bound := 0
	for len(recorder.Events) > 0 {
		if strings.Contains(<-recorder.Events, ReasonBound) {
			bound++
		}
	}
	if bound != 1 {
		t.Errorf("Bound events: %d, want 1", bound)
	}
}

// countingReader counts the Gets of a reader.
type countingReader struct {
	client.Reader
	gets int
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.gets++
	return r.Reader.Get(ctx, key, obj, opts...)
}
