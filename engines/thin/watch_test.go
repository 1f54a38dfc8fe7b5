package thin_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/thin"
)

// TestWatchesWakeTheProfilesRuntimes: a change of a ThinRuntimeProfile
// wakes the ThinRuntimes naming it, and no other.
func TestWatchesWakeTheProfilesRuntimes(t *testing.T) {
	thinRT := func(ns, name, profile string) *datav1alpha1.ThinRuntime {
		return &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: profile}}
	}
	r := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		thinRT("a", "one", "nfs"), thinRT("b", "two", "nfs"), thinRT("a", "other", "s3"), thinRT("a", "reference", "")).Build()
	watches := thin.Engine{}.Watches(r)
	if len(watches) != 1 {
		t.Fatalf("%d watches, want the profile's", len(watches))
	}
	if _, ok := watches[0].Object.(*datav1alpha1.ThinRuntimeProfile); !ok {
		t.Fatalf("the watch is of %T, want ThinRuntimeProfile", watches[0].Object)
	}
	got := watches[0].Map(context.Background(), &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "nfs"}})
	want := []client.ObjectKey{{Namespace: "a", Name: "one"}, {Namespace: "b", Name: "two"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the runtimes woken (-want +got):\n%s", diff)
	}
}

// TestServesLeavesReferenceRuntimes: the engine's reconciler serves a
// ThinRuntime with a profile, not one without (a reference dataset's,
// controller/reference).
func TestServesLeavesReferenceRuntimes(t *testing.T) {
	withProfile := &datav1alpha1.ThinRuntime{Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: "nfs"}}
	if !(thin.Engine{}).Serves(withProfile) {
		t.Error("a ThinRuntime with a profile is not served")
	}
	if (thin.Engine{}).Serves(&datav1alpha1.ThinRuntime{}) {
		t.Error("a ThinRuntime without a profile is served")
	}
}
