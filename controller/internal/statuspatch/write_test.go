package statuspatch_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/internal/statuspatch"
)

// api is a fake API server holding one Dataset, counting the patches it
// accepts and refuses.
type api struct {
	client.Client
	accepted, refused int
}

func newAPI(t *testing.T, ds *datav1alpha1.Dataset) *api {
	t.Helper()
	a := &api{}
	count := func(err error) error {
		switch {
		case err == nil:
			a.accepted++
		case apierrors.IsConflict(err):
			a.refused++
		}
		return err
	}
	a.Client = fakeclient.NewClientBuilder().WithScheme(scheme.New()).
		WithStatusSubresource(&datav1alpha1.Dataset{}).WithObjects(ds).
		WithInterceptorFuncs(interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				return count(c.Patch(ctx, obj, patch, opts...))
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				return count(c.SubResource(sub).Patch(ctx, obj, patch, opts...))
			},
		}).Build()
	return a
}

func (a *api) get(t *testing.T) *datav1alpha1.Dataset {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := a.Get(context.Background(), client.ObjectKey{Namespace: "n", Name: "d"}, ds); err != nil {
		t.Fatal(err)
	}
	return ds
}

// setPhase is a change that gives the Dataset phase p unless it has one.
func setPhase(p datav1alpha1.DatasetPhase) func(*datav1alpha1.Dataset) bool {
	return func(d *datav1alpha1.Dataset) bool {
		if d.Status.Phase != "" {
			return false
		}
		d.Status.Phase = p
		return true
	}
}

func dataset() *datav1alpha1.Dataset {
	return &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"},
		Status: datav1alpha1.DatasetStatus{CacheStates: datav1alpha1.CacheStateList{datav1alpha1.CacheCapacity: "1GiB"}}}
}

// TestWrite follows Write over a fresh read, a stale one whose change still
// applies, a stale one whose change no longer does, and a live reader that
// is stale too.
func TestWrite(t *testing.T) {
	ctx := context.Background()

	t.Run("nothing to change", func(t *testing.T) {
		a := newAPI(t, dataset())
		stored := a.get(t)
		prev, written, err := statuspatch.Write(ctx, a, a, stored, func(*datav1alpha1.Dataset) bool { return false })
		if err != nil || written != nil || prev != stored || a.accepted+a.refused != 0 {
			t.Errorf("written %v, prev is stored %v, error %v, %d patches; want nothing written", written, prev == stored, err, a.accepted+a.refused)
		}
	})

	t.Run("fresh read", func(t *testing.T) {
		a := newAPI(t, dataset())
		stored := a.get(t)
		prev, written, err := statuspatch.Write(ctx, a, a, stored, setPhase(datav1alpha1.NotBoundDatasetPhase))
		if err != nil || written == nil || a.accepted != 1 || a.refused != 0 {
			t.Fatalf("written %v, error %v, %d accepted and %d refused patches; want one accepted", written, err, a.accepted, a.refused)
		}
		if prev != stored || stored.Status.Phase != "" {
			t.Errorf("prev is stored %v, stored phase %q: the change must be applied to a copy", prev == stored, stored.Status.Phase)
		}
		if got := a.get(t); got.Status.Phase != datav1alpha1.NotBoundDatasetPhase || got.ResourceVersion != written.ResourceVersion {
			t.Errorf("stored phase %q at %s, written at %s", got.Status.Phase, got.ResourceVersion, written.ResourceVersion)
		}
	})

	t.Run("stale read, change applies to the live object", func(t *testing.T) {
		a := newAPI(t, dataset())
		stale := a.get(t)
		// Another writer drops the capacity in between.
		other := stale.DeepCopy()
		other.Status.CacheStates = nil
		if err := a.Status().Update(ctx, other); err != nil {
			t.Fatal(err)
		}
		prev, written, err := statuspatch.Write(ctx, a, a, stale, setPhase(datav1alpha1.NotBoundDatasetPhase))
		if err != nil || written == nil || a.accepted != 1 || a.refused != 1 {
			t.Fatalf("written %v, error %v, %d accepted and %d refused patches; want one refused, then one accepted", written, err, a.accepted, a.refused)
		}
		if prev.ResourceVersion != other.ResourceVersion || prev.Status.CacheStates != nil {
			t.Errorf("prev at %s with cacheStates %v, want the live object at %s without any", prev.ResourceVersion, prev.Status.CacheStates, other.ResourceVersion)
		}
		if got := a.get(t); got.Status.CacheStates != nil || got.Status.Phase != datav1alpha1.NotBoundDatasetPhase {
			t.Errorf("stored status %+v: the other writer's change is lost, or the phase not written", got.Status)
		}
	})

	t.Run("stale read, change no longer applies", func(t *testing.T) {
		a := newAPI(t, dataset())
		stale := a.get(t)
		other := stale.DeepCopy()
		other.Status.Phase = datav1alpha1.BoundDatasetPhase
		if err := a.Status().Update(ctx, other); err != nil {
			t.Fatal(err)
		}
		prev, written, err := statuspatch.Write(ctx, a, a, stale, setPhase(datav1alpha1.NotBoundDatasetPhase))
		if err != nil || written != nil || a.accepted != 0 || a.refused != 1 {
			t.Fatalf("written %v, error %v, %d accepted and %d refused patches; want one refused and nothing written", written, err, a.accepted, a.refused)
		}
		if prev.Status.Phase != datav1alpha1.BoundDatasetPhase {
			t.Errorf("prev phase %q, want the live object's Bound", prev.Status.Phase)
		}
	})

	for _, tc := range []struct {
		name    string
		opts    []statuspatch.Option
		patches int // refused, all of them
	}{
		{name: "live reader stale too: one re-read", patches: 2},
		{name: "live reader stale too: Rereads(2)", opts: []statuspatch.Option{statuspatch.Rereads(2)}, patches: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAPI(t, dataset())
			stale := a.get(t)
			other := stale.DeepCopy()
			other.Status.CacheStates = nil
			if err := a.Status().Update(ctx, other); err != nil {
				t.Fatal(err)
			}
			staleReader := interceptor.NewClient(fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(stale).Build(), interceptor.Funcs{})
			_, written, err := statuspatch.Write(ctx, a, staleReader, stale, setPhase(datav1alpha1.NotBoundDatasetPhase), tc.opts...)
			if written != nil || !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "writing the status of Dataset n/d") {
				t.Errorf("written %v, error %v; want a conflict naming the Dataset's status", written, err)
			}
			if a.refused != tc.patches || a.accepted != 0 {
				t.Errorf("%d refused and %d accepted patches, want %d refused", a.refused, a.accepted, tc.patches)
			}
		})
	}

	t.Run("Object writes metadata", func(t *testing.T) {
		a := newAPI(t, dataset())
		_, written, err := statuspatch.Write(ctx, a, a, a.get(t), func(d *datav1alpha1.Dataset) bool {
			return controllerutil.AddFinalizer(d, "example.com/f")
		}, statuspatch.Object())
		if err != nil || written == nil || !controllerutil.ContainsFinalizer(a.get(t), "example.com/f") {
			t.Errorf("written %v, error %v, stored finalizers %v; want the finalizer written", written, err, a.get(t).Finalizers)
		}
	})
}
