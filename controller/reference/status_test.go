package reference

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestRuntimeStatusCopiesTheReferencedRuntimeButKeepsItsConditions(t *testing.T) {
	prev := &datav1alpha1.RuntimeStatus{WorkerPhase: datav1alpha1.RuntimePhaseNotReady}
	target := &datav1alpha1.RuntimeStatus{WorkerPhase: datav1alpha1.RuntimePhaseReady, WorkerNumberReady: 2,
		Conditions: []metav1.Condition{{Type: "EngineInstalled", Status: metav1.ConditionTrue, Reason: "ReleaseInstalled"}}}
	mounts := []datav1alpha1.Mount{{MountPoint: "dataset://a/phy"}}
	o := observations{now: time.Now(), generation: 3, target: target, mounts: mounts}
	o.set(ConditionDatasetAvailable, yes(ReasonDatasetFound, "found"))
	o.set(ConditionReferenceAvailable, yes(ReasonReferenceBound, "bound"))
	o.set(ConditionVolumeBound, yes(ReasonBound, "Dataset b/ref is bound to the cache of Dataset a/phy"))
	s := runtimeStatus(prev, o)
	if s.WorkerPhase != datav1alpha1.RuntimePhaseReady || s.WorkerNumberReady != 2 || s.ObservedGeneration != 3 || len(s.Mounts) != 1 || s.Mounts[0].MountPoint != "dataset://a/phy" {
		t.Errorf("the referenced runtime's figures were not copied: %+v", s)
	}
	if meta.FindStatusCondition(s.Conditions, "EngineInstalled") != nil {
		t.Errorf("the referenced runtime's conditions were copied: %+v", s.Conditions)
	}
	if c := meta.FindStatusCondition(s.Conditions, ConditionReady); c == nil || c.Status != metav1.ConditionTrue || c.Message != "Dataset b/ref is bound to the cache of Dataset a/phy" {
		t.Errorf("Ready = %+v", c)
	}

	// A later round that stops at the referenced Dataset keeps the figures
	// and says why it is not Ready.
	o2 := observations{now: time.Now(), generation: 3}
	o2.set(ConditionReferenceAvailable, no(ReasonReferencedDatasetNotFound, "Dataset a/phy does not exist"))
	s2 := runtimeStatus(s, o2)
	if c := meta.FindStatusCondition(s2.Conditions, ConditionReady); c == nil || c.Reason != ReasonReferencedDatasetNotFound {
		t.Errorf("Ready = %+v", c)
	}
	if c := meta.FindStatusCondition(s2.Conditions, ConditionVolumeBound); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("an undecided condition changed: %+v", c)
	}
}

func TestBoundDatasetStatusTakesTheReferencedFiguresNotItsReferences(t *testing.T) {
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "ref", Generation: 2}}
	ds.Spec.Mounts = []datav1alpha1.Mount{{MountPoint: "dataset://a/phy"}}
	ds.Status.Conditions = []metav1.Condition{{Type: "Deleting", Status: metav1.ConditionFalse, Reason: "x"}}
	target := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "phy"}}
	target.Status = datav1alpha1.DatasetStatus{Phase: datav1alpha1.DataMigratingDatasetPhase, UfsTotal: "1GiB",
		CacheStates: datav1alpha1.CacheStateList{"cached": "1MiB"}, DatasetRef: []string{"b/ref"},
		Runtimes: []datav1alpha1.Runtime{{Name: "phy", Namespace: "a", Type: "juicefs"}}}
	rt := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "ref"}}
	s := boundDatasetStatus(ds, rt, target)
	if s.Phase != datav1alpha1.DataMigratingDatasetPhase || s.UfsTotal != "1GiB" || s.CacheStates["cached"] != "1MiB" {
		t.Errorf("figures: %+v", s)
	}
	if len(s.DatasetRef) != 0 || len(s.Runtimes) != 1 || s.Runtimes[0].Type != "thin" || s.Runtimes[0].Name != "ref" {
		t.Errorf("datasetRef %v, runtimes %+v", s.DatasetRef, s.Runtimes)
	}
	if meta.FindStatusCondition(s.Conditions, "Deleting") == nil || meta.FindStatusCondition(s.Conditions, ConditionReady).Status != metav1.ConditionTrue {
		t.Errorf("conditions: %+v", s.Conditions)
	}
	nb := notBoundDatasetStatus(&datav1alpha1.Dataset{Status: s}, *no(ReasonReferencedDatasetNotFound, "gone"))
	if nb.Phase != datav1alpha1.NotBoundDatasetPhase || nb.CacheStates != nil || len(nb.Runtimes) != 1 {
		t.Errorf("not bound: %+v", nb)
	}
}

func TestJoinSubPathAndReferencesOf(t *testing.T) {
	for _, c := range [][3]string{{"", "", ""}, {"", "train", "train"}, {"base", "", "base"}, {"base", "a/b", "base/a/b"}} {
		if got := joinSubPath(c[0], c[1]); got != c[2] {
			t.Errorf("joinSubPath(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "phy"}}
	ds.Status.DatasetRef = []string{"b/ref", "bad", "c/other"}
	var got []string
	for _, r := range referencesOf(t.Context(), ds) {
		got = append(got, r.String())
	}
	if want := []string{"a/phy", "b/ref", "c/other"}; !slices.Equal(got, want) {
		t.Errorf("referencesOf = %v, want %v", got, want)
	}
}
