package operation

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/internal/optional"
)

// waitRunAfter holds the operation until the one its spec.runAfter names
// (and its affinityStrategy.dependOn, when that is another) has completed
// (WaitingForRunAfter, waitingFor.operationComplete), holding no claim
// meanwhile, fails it if that one failed, and then derives the affinity the renderer adds from where the
// dependOn operation ran.
func (r *Reconciler) waitRunAfter(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	ref := s.op.GetRunAfter()
	if s.started() || ref == nil {
		return ctrl.Result{}, true, nil
	}
	deps := []datav1alpha1.ObjectRef{ref.ObjectRef}
	if d := ref.AffinityStrategy.DependOn; d != nil && (d.Kind != ref.Kind || d.Name != ref.Name) {
		deps = append(deps, *d)
	}
	var placed *datav1alpha1.OperationStatus
	for i, dep := range deps {
		field := "spec.runAfter"
		if i > 0 {
			field = "spec.runAfter.affinityStrategy.dependOn"
		}
		st, res, ok, err := r.precedingStatus(ctx, s, field, dep)
		switch {
		case err != nil:
			return res, false, err
		case !ok && s.obs.failure == nil:
			// Waiting holds nothing: a claim made at admission goes.
			return res, false, r.releaseClaim(ctx, s.op)
		case !ok:
			return res, false, nil
		}
		placed = st
	}
	s.obs.runAfter = isFalse(ReasonRunAfterComplete, fmt.Sprintf("%s %s completed", ref.Kind, ref.Name))
	aff, missing := affinityFor(ref.AffinityStrategy, placed.NodeAffinity)
	if len(missing) > 0 {
		s.obs.failure = isTrue(ReasonInvalidSpec, notRecorded(ref, missing))
		return ctrl.Result{}, false, nil
	}
	s.request.Affinity = aff
	return ctrl.Result{}, true, nil
}

// precedingStatus reads the status of an operation this one follows; ok is
// true once it completed. Missing or unfinished, the operation waits;
// failed, it fails.
func (r *Reconciler) precedingStatus(ctx context.Context, s *scope, field string, dep datav1alpha1.ObjectRef) (*datav1alpha1.OperationStatus, ctrl.Result, bool, error) {
	prev, known := datav1alpha1.NewOperation(string(dep.Kind))
	if !known {
		s.obs.failure = isTrue(ReasonInvalidSpec, fmt.Sprintf("%s.kind: %q is not a data operation kind", field, dep.Kind))
		return nil, ctrl.Result{}, false, nil
	}
	key := types.NamespacedName{Namespace: s.op.GetNamespace(), Name: dep.Name}
	found, err := optional.Get(ctx, r.Client, key, prev)
	switch {
	case err != nil:
		return nil, ctrl.Result{}, false, err
	case !found:
		s.obs.runAfter = isTrue(ReasonRunAfterNotFound, fmt.Sprintf("%s: %s %s does not exist (yet); waiting", field, dep.Kind, dep.Name))
		return nil, ctrl.Result{RequeueAfter: waitRetry}, false, nil
	}
	st := prev.GetOperationStatus()
	switch st.Phase {
	case datav1alpha1.PhaseComplete:
		return st, ctrl.Result{}, true, nil
	case datav1alpha1.PhaseFailed:
		s.obs.failure = isTrue(ReasonRunAfterFailed, fmt.Sprintf("%s: %s %s failed, so this operation does not run", field, dep.Kind, dep.Name))
		return nil, ctrl.Result{}, false, nil
	}
	phase := st.Phase
	if phase == datav1alpha1.PhaseNone {
		phase = "not started"
	}
	s.obs.runAfter = isTrue(ReasonRunAfterPending, fmt.Sprintf("%s: waiting for %s %s to complete (%s)", field, dep.Kind, dep.Name, phase))
	return nil, ctrl.Result{RequeueAfter: waitRetry}, false, nil
}

// notRecorded says which node labels spec.runAfter.affinityStrategy
// requires that the operation it depends on did not record where it ran,
// and how to have them recorded.
func notRecorded(ref *datav1alpha1.OperationRef, missing []string) string {
	dep := ref.ObjectRef
	if d := ref.AffinityStrategy.DependOn; d != nil {
		dep = *d
	}
	return fmt.Sprintf("spec.runAfter.affinityStrategy.requires: %s %s did not record node label %s where it ran (it records %s, %s, %s, "+
		"the keys its %s annotation names and those of its own node affinity, when its node has them), so this operation cannot be placed by it",
		dep.Kind, dep.Name, strings.Join(quoted(missing), ", "), labelHostname, labelRegion, labelZone, datav1alpha1.AnnotationDataflowAffinityLabels)
}

func quoted(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
