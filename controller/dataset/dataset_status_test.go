package dataset

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestMarkNotBoundFillsOnlyAnEmptyPhase(t *testing.T) {
	bound := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: "Bound"}
	for _, c := range []struct {
		name      string
		status    datav1alpha1.DatasetStatus
		changed   bool                      // markNotBound reports a change
		phase     datav1alpha1.DatasetPhase // the phase after
		readyFrom string                    // Ready's reason after
	}{
		{"new Dataset", datav1alpha1.DatasetStatus{}, true, datav1alpha1.NotBoundDatasetPhase, ReasonNotBound},
		{"Bound by the runtime controller", datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase, Conditions: []metav1.Condition{bound}},
			false, datav1alpha1.BoundDatasetPhase, "Bound"},
		{"DataMigrating", datav1alpha1.DatasetStatus{Phase: datav1alpha1.DataMigratingDatasetPhase}, false, datav1alpha1.DataMigratingDatasetPhase, ""},
		{"NotBound already", datav1alpha1.DatasetStatus{Phase: datav1alpha1.NotBoundDatasetPhase}, false, datav1alpha1.NotBoundDatasetPhase, ""},
		{"no phase but a Ready condition: the condition is kept", datav1alpha1.DatasetStatus{Conditions: []metav1.Condition{bound}},
			true, datav1alpha1.NotBoundDatasetPhase, "Bound"},
	} {
		s := c.status.DeepCopy()
		if got := markNotBound(s, 3); got != c.changed {
			t.Errorf("%s: changed = %v, want %v", c.name, got, c.changed)
		}
		if s.Phase != c.phase {
			t.Errorf("%s: phase = %q, want %q", c.name, s.Phase, c.phase)
		}
		ready := meta.FindStatusCondition(s.Conditions, ConditionReady)
		switch {
		case c.readyFrom == "" && ready != nil:
			t.Errorf("%s: Ready = %+v, want none", c.name, ready)
		case c.readyFrom != "" && (ready == nil || ready.Reason != c.readyFrom):
			t.Errorf("%s: Ready = %+v, want reason %s", c.name, ready, c.readyFrom)
		}
	}
}

func TestBoundRuntimesAreOnlyTheDatasetsOwn(t *testing.T) {
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}, Status: datav1alpha1.DatasetStatus{Runtimes: []datav1alpha1.Runtime{
		{Name: "d", Namespace: "n", Type: "juicefs"},     // bound
		{Name: "d", Type: "alluxio"},                     // no namespace recorded: the Dataset's
		{Name: "other", Namespace: "n", Type: "juicefs"}, // another name: not the controller's to delete
		{Name: "d", Namespace: "elsewhere", Type: "thin"},
	}}}
	got := boundRuntimes(ds)
	if len(got) != 2 || got[0].Type != "juicefs" || got[1].Type != "alluxio" {
		t.Errorf("boundRuntimes = %+v", got)
	}
}

func TestWaitFor(t *testing.T) {
	for _, c := range []struct {
		name    string
		d       deletion
		waits   bool     // the deletion waits
		reason  string   // Deleting's reason
		mention []string // the message names these
	}{
		{"nothing: the finalizer goes", deletion{}, false, "", nil},
		{"Pods", deletion{users: []string{"a", "b"}}, true, ReasonInUse, []string{"a, b"}},
		{"reference datasets", deletion{refs: []string{"x/ref"}}, true, ReasonReferenced, []string{"x/ref"}},
		{"Pods and references: both named", deletion{users: []string{"a"}, refs: []string{"x/ref"}}, true, ReasonInUse, []string{"a", "x/ref"}},
		{"runtimes", deletion{runtimes: []string{"juicefs runtime d"}}, true, ReasonRuntimeDeleting, []string{"juicefs runtime d"}},
	} {
		w, waits := waitFor(c.d)
		if waits != c.waits || w.reason != c.reason {
			t.Errorf("%s: waitFor = %+v, %v; want reason %q, %v", c.name, w, waits, c.reason, c.waits)
		}
		for _, m := range c.mention {
			if !strings.Contains(w.message, m) {
				t.Errorf("%s: message %q does not name %q", c.name, w.message, m)
			}
		}
	}
	if (deletion{runtimes: []string{"r"}}).blocked() {
		t.Error("a pending runtime must not block its own deletion")
	}
}

func TestMarkDeletingChangesOnce(t *testing.T) {
	s := &datav1alpha1.DatasetStatus{}
	w := wait{reason: ReasonInUse, message: "deletion waits: Pods use the Dataset: a"}
	if !markDeleting(s, w, 1) {
		t.Fatal("the first wait was not recorded")
	}
	if markDeleting(s, w, 1) {
		t.Error("the same wait was recorded twice")
	}
	w.message = "deletion waits: Pods use the Dataset: b"
	if !markDeleting(s, w, 1) {
		t.Error("other Pods were not recorded")
	}
	c := meta.FindStatusCondition(s.Conditions, ConditionDeleting)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != ReasonInUse || c.Message != w.message {
		t.Errorf("Deleting = %+v", c)
	}
}
