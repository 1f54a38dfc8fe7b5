package audit

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/mutating"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/snapshot"
	"github.com/sluice-data/sluice/webhook/validating"
)

// The policies a finding comes from, as a report names them.
const (
	// PolicyValidating is the validating webhook's policy, over Sluice objects.
	PolicyValidating = "sluice-validating"
	// PolicyPods is the mutating webhook's deny rules, over Pods.
	PolicyPods = "sluice-pods"
)

// Finding is one outcome of one stored object: it passed, a rule denies it
// (fail, one finding per denial), or it could not be evaluated (error).
type Finding struct {
	// Object is the audited object.
	Object corev1.ObjectReference `json:"object"`
	// Policy is PolicyValidating or PolicyPods.
	Policy string `json:"policy"`
	// Rule is the denying rule, for a fail.
	Rule string `json:"rule,omitempty"`
	// Message says what the rule found, or why evaluation failed.
	Message string                      `json:"message,omitempty"`
	Result  policyreportv1alpha2.Result `json:"result"`
}

// Auditor evaluates stored objects with the webhook's pipelines.
type Auditor struct {
	// validating judges Sluice objects; it has no Claimer, so nothing is
	// recorded.
	validating *validating.Pipeline
	// mutating judges Pods, with CheckOnly: its deny rules only.
	mutating *mutating.Pipeline
}

// New returns an Auditor evaluating with engine's active bundle, reading
// the objects the policies consult through r (the webhook's cache, or the
// objects `sluice policy audit` read), and FUSE records in fuseRecords.
func New(engine *policy.Engine, r client.Reader, fuseRecords string, nativeSidecars bool) *Auditor {
	return &Auditor{
		validating: &validating.Pipeline{Engine: engine, Gatherer: &validating.Gatherer{Reader: r}},
		mutating: &mutating.Pipeline{
			Engine: engine, Gatherer: &snapshot.Gatherer{Reader: r, Records: fuseRecords},
			Mutators: mutating.DefaultMutators(), NativeSidecars: nativeSidecars,
		},
	}
}

// Object evaluates a stored Sluice object of the given kind as its CREATE
// would be: the rules that compare an update with the stored object do not
// apply, those that read its neighbours see the cluster as it is.
func (a *Auditor) Object(ctx context.Context, kind string, obj client.Object) []Finding {
	ref := reference(kind, obj)
	_, err := a.validating.Validate(ctx, validating.Request{Kind: kind, Operation: "CREATE", Namespace: obj.GetNamespace(), Object: obj})
	return outcome(ref, PolicyValidating, err)
}

// InScope says whether a Pod is audited: it is running or pending, and
// mounts a PVC (which may be a dataset's) or asked for injection.
func InScope(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	if datav1alpha1.AskedForInjection(pod.Labels) {
		return true
	}
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			return true
		}
	}
	return false
}

// Pod evaluates a stored Pod against the mutating webhook's deny rules, as
// its CREATE would be; nothing of the decision is applied.
func (a *Auditor) Pod(ctx context.Context, pod *corev1.Pod) []Finding {
	ref := reference("Pod", pod)
	ref.APIVersion = "v1"
	_, err := a.mutating.Mutate(ctx, mutating.Request{Pod: pod, Operation: "CREATE", Namespace: pod.Namespace, CheckOnly: true})
	return outcome(ref, PolicyPods, err)
}

func outcome(ref corev1.ObjectReference, policy string, err error) []Finding {
	var denied *decision.DeniedError
	switch {
	case err == nil:
		return []Finding{{Object: ref, Policy: policy, Result: policyreportv1alpha2.ResultPass}}
	case errors.As(err, &denied):
		out := make([]Finding, len(denied.Denials))
		for i, d := range denied.Denials {
			out[i] = Finding{Object: ref, Policy: policy, Rule: d.Rule, Message: d.Message, Result: policyreportv1alpha2.ResultFail}
		}
		return out
	default:
		return []Finding{{Object: ref, Policy: policy, Message: fmt.Sprintf("evaluating %s %s/%s: %v", ref.Kind, ref.Namespace, ref.Name, err), Result: policyreportv1alpha2.ResultError}}
	}
}

func reference(kind string, obj client.Object) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: "data.fluid.io/v1alpha1", Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(),
		UID: obj.GetUID(),
	}
}
