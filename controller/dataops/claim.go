package dataops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
)

// retryHeld is how often an operation waiting for its Dataset tries again.
const retryHeld = 10 * time.Second

// ClaimReconciler claims the Dataset of an operation of kind Kind that does
// not hold it (it was admitted without a claim), and records the outcome in
// the operation's DatasetClaimed condition.
type ClaimReconciler struct {
	// Kind is the operation kind reconciled, e.g. DataLoad.
	Kind string
	// Client reads operations (from the cache) and writes their status.
	Client client.Client
	// Claimer records claims, reading from the API server.
	Claimer *claim.Claimer
	// Conflicts maps each kind to the kinds that block it.
	Conflicts map[string][]string
}

// Reconcile implements reconcile.Reconciler for one operation kind.
func (r *ClaimReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	op, ok := datav1alpha1.NewOperation(r.Kind)
	if !ok {
		return ctrl.Result{}, fmt.Errorf("unknown operation kind %q", r.Kind)
	}
	if err := r.Client.Get(ctx, req.NamespacedName, op); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if op.GetDeletionTimestamp() != nil || op.GetOperationStatus().Finished() {
		return ctrl.Result{}, nil // the ReleaseReconciler releases it
	}
	ns, name, ok := op.GetTargetDataset()
	if !ok || ns != op.GetNamespace() {
		return ctrl.Result{}, r.setCondition(ctx, op, metav1.ConditionFalse, ReasonNoTarget, "the operation names no Dataset in its own namespace")
	}
	err := r.Claimer.Claim(ctx, claim.Request{
		Dataset: types.NamespacedName{Namespace: ns, Name: name}, Kind: r.Kind, Name: op.GetName(), Conflicts: r.Conflicts[r.Kind],
	})
	var held *claim.HeldError
	var missing *claim.NotFoundError
	switch {
	case errors.As(err, &held):
		return ctrl.Result{RequeueAfter: retryHeld}, r.setCondition(ctx, op, metav1.ConditionFalse, ReasonDatasetHeld, held.Error()+"; waiting")
	case errors.As(err, &missing):
		return ctrl.Result{RequeueAfter: retryHeld}, r.setCondition(ctx, op, metav1.ConditionFalse, ReasonDatasetNotFound, missing.Error()+"; waiting")
	case err != nil:
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.setCondition(ctx, op, metav1.ConditionTrue, ReasonClaimed, fmt.Sprintf("holds dataset %s/%s", ns, name))
}

// setCondition writes the DatasetClaimed condition when it changes; an
// operation that waits for its Dataset is Pending.
func (r *ClaimReconciler) setCondition(ctx context.Context, op datav1alpha1.OperationObject, status metav1.ConditionStatus, reason, msg string) error {
	s := op.GetOperationStatus()
	cond := metav1.Condition{Type: ConditionDatasetClaimed, Status: status, Reason: reason, Message: msg, ObservedGeneration: op.GetGeneration()}
	changed := meta.SetStatusCondition(&s.Conditions, cond)
	if status == metav1.ConditionFalse && s.Phase == datav1alpha1.PhaseNone {
		s.Phase, changed = datav1alpha1.PhasePending, true
	}
	if !changed {
		return nil
	}
	return r.Client.Status().Update(ctx, op)
}
