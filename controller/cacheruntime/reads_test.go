package cacheruntime

import (
	"context"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/engines/thin"
)

// countingClient counts the reads (Get) of each kind it passes on.
type countingClient struct {
	client.Client
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.mu.Lock()
	if c.reads == nil {
		c.reads = map[string]int{}
	}
	c.reads[kindOf(obj)]++
	c.mu.Unlock()
	return c.Client.Get(ctx, key, obj, opts...)
}

// take returns the reads of kind since the last take of it.
func (c *countingClient) take(kind string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.reads[kind]
	delete(c.reads, kind)
	return n
}

func kindOf(obj client.Object) string {
	gvks, _, err := scheme.New().ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return "?"
	}
	return gvks[0].Kind
}

// thinFixture is a ThinRuntime without workers on a profile, its Dataset and
// a reconciler with the Thin engine that reads through a countingClient.
func thinFixture(t *testing.T, profileFuse, runtimeFuse datav1alpha1.FuseCleanPolicy) (*Reconciler, *countingClient, ctrl.Request) {
	t.Helper()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", UID: "ds-1"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "nfs://10.0.0.5/exports/d", Name: "d"}}}}
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "nfs"}, Spec: datav1alpha1.ThinRuntimeProfileSpec{
		FileSystemType: "fuse.nfs",
		Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/nfs-fuse", ImageTag: "v1"},
			Command: []string{"/mount.sh"}, CleanPolicy: profileFuse},
	}}
	rt := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", UID: "rt-1"},
		Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: "nfs", Fuse: datav1alpha1.ThinFuseSpec{CleanPolicy: runtimeFuse}}}
	api := fakeclient.NewClientBuilder().WithScheme(scheme.New()).
		WithStatusSubresource(&datav1alpha1.Dataset{}, &datav1alpha1.ThinRuntime{}).
		WithObjects(ds, profile, rt).Build()
	c := &countingClient{Client: api}
	hc := helm.NewMemoryClient("n", nil)
	r := &Reconciler{
		Client: c,
		Engine: thin.Engine{}, Helm: func(string) (*helm.Client, error) { return hc, nil },
	}
	return r, c, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "n", Name: "d"}}
}

// TestThinProfileReadOncePerReconcile: values, topology and the PV's mount
// type and clean policy all come from one read of the ThinRuntimeProfile
// per reconcile.
func TestThinProfileReadOncePerReconcile(t *testing.T) {
	r, c, req := thinFixture(t, "", "")
	for i := range 3 {
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if n := c.take("ThinRuntimeProfile"); n != 1 {
			t.Errorf("reconcile %d read the ThinRuntimeProfile %d times, want once", i+1, n)
		}
	}
	pv := &corev1.PersistentVolume{}
	if err := c.Get(context.Background(), types.NamespacedName{Name: "n-d"}, pv); err != nil {
		t.Fatalf("the reconciles created no PV: %v", err)
	}
	if got := pv.Spec.CSI.VolumeAttributes[datav1alpha1.VolumeAttrMountType]; got != "fuse.nfs" {
		t.Errorf("PV mount_type %q, want the profile's fileSystemType", got)
	}
}

// TestThinFuseCleanPolicyOnPV: the PV carries the runtime's FUSE
// cleanPolicy, else its profile's, else OnRuntimeDeleted (Fluid's default).
func TestThinFuseCleanPolicyOnPV(t *testing.T) {
	for _, tc := range []struct {
		name             string
		profile, runtime datav1alpha1.FuseCleanPolicy
		want             datav1alpha1.FuseCleanPolicy
	}{
		{"neither", "", "", datav1alpha1.OnRuntimeDeletedCleanPolicy},
		{"profile only", datav1alpha1.OnDemandCleanPolicy, "", datav1alpha1.OnDemandCleanPolicy},
		{"runtime only", "", datav1alpha1.OnFuseChangedCleanPolicy, datav1alpha1.OnFuseChangedCleanPolicy},
		{"runtime overrides profile", datav1alpha1.OnDemandCleanPolicy, datav1alpha1.OnRuntimeDeletedCleanPolicy, datav1alpha1.OnRuntimeDeletedCleanPolicy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, c, req := thinFixture(t, tc.profile, tc.runtime)
			if _, err := r.Reconcile(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			ds := &datav1alpha1.Dataset{}
			if err := c.Get(context.Background(), req.NamespacedName, ds); err != nil {
				t.Fatal(err)
			}
			pv := &corev1.PersistentVolume{}
			if err := c.Get(context.Background(), types.NamespacedName{Name: volume.Name(ds)}, pv); err != nil {
				t.Fatalf("no PV: %v", err)
			}
			if got := pv.Spec.CSI.VolumeAttributes[datav1alpha1.VolumeAttrFuseCleanPolicy]; got != string(tc.want) {
				t.Errorf("PV %s = %q, want %q", datav1alpha1.VolumeAttrFuseCleanPolicy, got, tc.want)
			}
		})
	}
}

// TestStatusWriteReadsTheRuntimeOnce: a reconcile reads its runtime once;
// writeStatus compares with the status that read returned rather than
// reading the runtime again (it reads it live only when the API server
// refuses the patch because the cache was behind).
func TestStatusWriteReadsTheRuntimeOnce(t *testing.T) {
	r, c, req := thinFixture(t, "", "")
	for i := range 3 {
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if n := c.take("ThinRuntime"); n != 1 {
			t.Errorf("reconcile %d read the ThinRuntime %d times, want once", i+1, n)
		}
	}
}
