package audit

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies/enforcement"
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

// Finding is one outcome of one stored object: it passed, a rule found
// something in it (one finding per rule's finding: fail when the rule
// denies it, warn when the rule is in warn or dryrun mode, skip when an
// exception covers it), or it could not be evaluated (error).
type Finding struct {
	// Object is the audited object.
	Object corev1.ObjectReference `json:"object"`
	// Policy is PolicyValidating or PolicyPods.
	Policy string `json:"policy"`
	// Rule is the rule that found something.
	Rule string `json:"rule,omitempty"`
	// Outcome is what the rule's enforcement made of it: denied, warned,
	// dryrun or excepted (policies/enforcement).
	Outcome enforcement.Outcome `json:"outcome,omitempty"`
	// Exception names the exception that covers the object (excepted).
	Exception string `json:"exception,omitempty"`
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
	d, err := a.validating.Validate(ctx, validating.Request{Kind: kind, Operation: "CREATE", Namespace: obj.GetNamespace(), Object: obj})
	var verdicts []enforcement.Verdict
	if d != nil {
		verdicts = d.Verdicts
	}
	return outcome(ref, PolicyValidating, verdicts, err)
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
	res, err := a.mutating.Mutate(ctx, mutating.Request{Pod: pod, Operation: "CREATE", Namespace: pod.Namespace, CheckOnly: true})
	var verdicts []enforcement.Verdict
	if res != nil {
		verdicts = res.Verdicts
	}
	return outcome(ref, PolicyPods, verdicts, err)
}

// outcome turns an evaluation into findings: one per verdict of a rule
// that found something (its result as its enforcement made it), an error,
// or a pass.
func outcome(ref corev1.ObjectReference, policy string, verdicts []enforcement.Verdict, err error) []Finding {
	var denied *decision.DeniedError
	if err != nil && !errors.As(err, &denied) {
		return []Finding{{Object: ref, Policy: policy, Message: fmt.Sprintf("evaluating %s %s/%s: %v", ref.Kind, ref.Namespace, ref.Name, err), Result: policyreportv1alpha2.ResultError}}
	}
	var out []Finding
	for _, v := range verdicts {
		if enforcement.IsMutation(v.Rule) {
			continue // the audit judges, it does not mutate
		}
		out = append(out, Finding{Object: ref, Policy: policy, Rule: v.Rule, Message: v.Message, Outcome: v.Outcome, Exception: v.Exception, Result: resultOf(v.Outcome)})
	}
	if len(out) == 0 && denied != nil {
		// A denial without verdicts (none of the audit's pipelines gives
		// one): reported as it refuses.
		for _, d := range denied.Denials {
			out = append(out, Finding{Object: ref, Policy: policy, Rule: d.Rule, Message: d.Message, Outcome: enforcement.Denied, Result: policyreportv1alpha2.ResultFail})
		}
	}
	if len(out) == 0 {
		return []Finding{{Object: ref, Policy: policy, Result: policyreportv1alpha2.ResultPass}}
	}
	return out
}

// resultOf is the report's result of a rule's finding: fail when it
// refuses the object, warn when its mode admits it (warn or dryrun), skip
// when an exception covers the object.
func resultOf(o enforcement.Outcome) policyreportv1alpha2.Result {
	switch o {
	case enforcement.Warned, enforcement.DryRunned:
		return policyreportv1alpha2.ResultWarn
	case enforcement.Excepted:
		return policyreportv1alpha2.ResultSkip
	}
	return policyreportv1alpha2.ResultFail
}

func reference(kind string, obj client.Object) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: "data.fluid.io/v1alpha1", Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(),
		UID: obj.GetUID(),
	}
}
