package cacheruntime

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/hostports"
	"github.com/sluice-data/sluice/engines/fake"
)

// hostPortEngine is the fake engine with components on the host network
// listening on want.
type hostPortEngine struct {
	fake.Engine
	want map[string]int
}

func (e hostPortEngine) HostPorts(client.Object) (map[string]int, error) { return e.want, nil }

// TestHostPortsAreRecordedBeforeTheRelease: a runtime's host ports are
// recorded in its status before its release is installed; a range without
// enough free ports installs nothing and says so (HostPortsExhausted),
// asking again later; a runtime gone frees its ports.
func TestHostPortsAreRecordedBeforeTheRelease(t *testing.T) {
	ctx := context.Background()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", UID: "u1"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b", Name: "b"}}}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 1}}
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).
		WithStatusSubresource(&datav1alpha1.Dataset{}, &datav1alpha1.AlluxioRuntime{}).
		WithObjects(ds, rt).Build()
	hc := helm.NewMemoryClient("n", nil)
	ports := hostports.New(hostports.Range{First: 100, Last: 101}, hostports.Records(c))
	eng := hostPortEngine{want: map[string]int{"master.rpc": 0, "master.web": 0, "worker.rpc": 0}}
	r := &Reconciler{Client: c, Engine: eng, Helm: func(string) (*helm.Client, error) { return hc, nil }, HostPorts: ports}
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "n", Name: "d"}}
	reconcile := func() (ctrl.Result, *datav1alpha1.AlluxioRuntime) {
		t.Helper()
		res, err := r.Reconcile(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got := &datav1alpha1.AlluxioRuntime{}
		if err := c.Get(ctx, req.NamespacedName, got); err != nil {
			t.Fatal(err)
		}
		return res, got
	}

	res, got := reconcile()
	cond := meta.FindStatusCondition(got.Status.Conditions, ConditionEngineInstalled)
	if cond == nil || cond.Reason != ReasonHostPortsExhausted || res.RequeueAfter != waitHostPorts {
		t.Fatalf("three ports from a range of two: EngineInstalled %+v, requeue %v", cond, res.RequeueAfter)
	}
	if rel, _ := hc.Latest("d"); rel != nil {
		t.Fatal("a release was installed without its host ports")
	}

	r.Engine = hostPortEngine{want: map[string]int{"master.rpc": 0, "worker.rpc": 0, "worker.web": 30000}}
	_, got = reconcile()
	want := map[string]int32{"master.rpc": 100, "worker.rpc": 101, "worker.web": 30000}
	if !cmp.Equal(got.Status.HostPorts, want) {
		t.Errorf("status.hostPorts %v, want %v", got.Status.HostPorts, want)
	}
	if rel, err := hc.Latest("d"); err != nil || rel == nil {
		t.Fatalf("the release was not installed once the ports were recorded: %v", err)
	}

	// A restarted controller reads the record back.
	if held, err := hostports.New(hostports.Range{First: 100, Last: 101}, hostports.Records(c)).Held(ctx, r.holder(req.NamespacedName)); err != nil || !cmp.Equal(held, want) {
		t.Errorf("read back: %v, %v; want %v", held, err, want)
	}

	if err := c.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if held, err := ports.Held(ctx, r.holder(req.NamespacedName)); err != nil || held != nil {
		t.Errorf("a runtime gone still holds %v (%v)", held, err)
	}
}
