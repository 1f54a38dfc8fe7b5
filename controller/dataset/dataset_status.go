package dataset

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// markNotBound gives a Dataset without a phase the phase NotBound, and
// Ready=False (NotBound) unless it has a Ready condition; it reports
// whether it changed the status. A phase already set (Bound, by the runtime
// controller, or any other) is never replaced.
func markNotBound(s *datav1alpha1.DatasetStatus, generation int64) bool {
	if s.Phase != datav1alpha1.NoneDatasetPhase {
		return false
	}
	s.Phase = datav1alpha1.NotBoundDatasetPhase
	if meta.FindStatusCondition(s.Conditions, ConditionReady) == nil {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonNotBound,
			Message: "no runtime is bound to the Dataset", ObservedGeneration: generation})
	}
	return true
}

// boundRuntimes are the runtimes the Dataset's status lists as bound to it:
// those of its own name and namespace (the runtime controller binds a
// Dataset only to the runtime of its name). Any other entry is not this
// controller's to delete.
func boundRuntimes(ds *datav1alpha1.Dataset) []datav1alpha1.Runtime {
	var out []datav1alpha1.Runtime
	for _, r := range ds.Status.Runtimes {
		if r.Name == ds.Name && (r.Namespace == ds.Namespace || r.Namespace == "") {
			out = append(out, r)
		}
	}
	return out
}

// deletion is what the reconcile of a deleted Dataset observed.
type deletion struct {
	// users are the Pods using the Dataset (volume.UsersOf).
	users []string
	// refs are the reference datasets mounting it (status.datasetRef).
	refs []string
	// runtimes are the bound runtimes not gone yet ("juicefs runtime d").
	runtimes []string
}

// wait is what a deletion waits for: the Deleting condition's reason and
// message, and the event's type.
type wait struct {
	reason, message, eventType string
}

// waitFor says what the deletion waits for, in order: Pods and reference
// datasets (nothing is deleted while they use the Dataset), then the bound
// runtimes' deletion. Nothing left to wait for (ok false), the finalizer
// goes.
func waitFor(d deletion) (w wait, ok bool) {
	var blocks []string
	if len(d.users) > 0 {
		blocks = append(blocks, "Pods use the Dataset: "+strings.Join(d.users, ", "))
	}
	if len(d.refs) > 0 {
		blocks = append(blocks, "reference datasets mount it: "+strings.Join(d.refs, ", "))
	}
	switch {
	case len(d.users) > 0:
		return wait{ReasonInUse, "deletion waits: " + strings.Join(blocks, "; "), corev1.EventTypeWarning}, true
	case len(d.refs) > 0:
		return wait{ReasonReferenced, "deletion waits: " + strings.Join(blocks, "; "), corev1.EventTypeWarning}, true
	case len(d.runtimes) > 0:
		return wait{ReasonRuntimeDeleting, fmt.Sprintf("deletion waits for %s to be deleted and cleaned up", strings.Join(d.runtimes, ", ")), corev1.EventTypeNormal}, true
	}
	return wait{}, false
}

// blocked says whether the deletion waits for Pods or reference datasets,
// before any runtime is deleted.
func (d deletion) blocked() bool { return len(d.users) > 0 || len(d.refs) > 0 }

// markDeleting sets Deleting=True with the wait's reason and message; it
// reports whether the condition changed (reason or message: a new
// reason, or other Pods, is announced by an event).
func markDeleting(s *datav1alpha1.DatasetStatus, w wait, generation int64) bool {
	prev := meta.FindStatusCondition(s.Conditions, ConditionDeleting)
	if prev != nil && prev.Status == metav1.ConditionTrue && prev.Reason == w.reason && prev.Message == w.message {
		return false
	}
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionDeleting, Status: metav1.ConditionTrue, Reason: w.reason,
		Message: w.message, ObservedGeneration: generation})
	return true
}
