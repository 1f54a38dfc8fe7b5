package controller_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestARefusedUpgradeBacksOff (M1): a spec change whose workers the API
// server refuses (requests above limits) fails the upgrade once, is rolled
// back once, and is then not tried again every reconcile: the release's
// revisions stop growing, the workers keep their last good spec, and the
// runtime says ReleaseFailed with the API server's reason and when the spec
// is tried again.
func TestARefusedUpgradeBacksOff(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	rt := boundRuntime(t, ns, "refused")
	sts := &appsv1.StatefulSet{}
	edit(t, rt, func(rt *datav1alpha1.JuiceFSRuntime) {
		rt.Spec.Worker.Resources = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
		}
	})
	var ready *metav1.Condition
	eventually(t, 30*time.Second, "the runtime reports the refused upgrade and when it is tried again", func() bool {
		if env.Client.Get(ctx, key("refused"), rt) != nil {
			return false
		}
		ready = meta.FindStatusCondition(rt.Status.Conditions, cacheruntime.ConditionReady)
		return ready != nil && ready.Reason == cacheruntime.ReasonReleaseFailed && strings.Contains(ready.Message, "tried again after")
	})
	if !strings.Contains(ready.Message, "must be less than or equal to cpu limit") {
		t.Errorf("Ready message %q does not give the API server's reason", ready.Message)
	}

	releases := releaseStorage(t, ns)
	revisions := func() int {
		h, err := releases.History("refused")
		if err != nil {
			t.Fatal(err)
		}
		return len(h)
	}
	// Before the back-off, an upgrade and a rollback followed each other
	// within seconds, for ever (the controller under test re-reads every
	// second): five re-reads show it.
	before := revisions()
	time.Sleep(5 * time.Second)
	if after := revisions(); after != before || after > 4 {
		t.Fatalf("release revisions: %d, then %d 5 s later; want install, failed upgrade, rollback and no more", before, after)
	}
	ctx = testenv.Context(t)
	if err := env.Client.Get(ctx, key("refused-worker"), sts); err != nil {
		t.Fatal(err)
	}
	if got := sts.Spec.Template.Spec.Containers[0].Resources; len(got.Limits) != 0 || len(got.Requests) != 0 {
		t.Fatalf("workers' resources = %+v, want their last good spec (none)", got)
	}
	if events := runtimeEvents(t, ns, "refused"); strings.Count(events, "Release/Rollback") != 1 {
		t.Fatalf("events:\n%s\nwant one rollback", events)
	}
}
