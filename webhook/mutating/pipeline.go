package mutating

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gomodules.xyz/jsonpatch/v2"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/internal/podpatch"
	"github.com/sluice-data/sluice/webhook/internal/regovalue"
	"github.com/sluice-data/sluice/webhook/metrics"
	"github.com/sluice-data/sluice/webhook/mutating/affinity"
	"github.com/sluice-data/sluice/webhook/mutating/apppoststart"
	"github.com/sluice-data/sluice/webhook/mutating/podmeta"
	"github.com/sluice-data/sluice/webhook/mutating/propagation"
	"github.com/sluice-data/sluice/webhook/mutating/sidecar"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// Mutator applies one part of a mutating decision to a Pod. It must be
// idempotent: applying the same decision to its own output changes nothing.
type Mutator interface {
	Name() string
	Mutate(pod *corev1.Pod, d *decision.Mutating, vols []snapshot.DatasetVolume) error
}

// Request is what a Pod's mutation depends on besides the cluster.
type Request struct {
	Pod       *corev1.Pod
	Operation string
	Namespace string
	User      authenticationv1.UserInfo
	DryRun    bool
	// CheckOnly evaluates the policies and refuses the Pod on their deny
	// rules, but applies nothing else of the decision: for a Pod Skipped
	// leaves unmutated.
	CheckOnly bool
}

// Result is the outcome of a mutation.
type Result struct {
	// Decision is the policies' decision.
	Decision *decision.Mutating
	// Pod is the mutated Pod (the input Pod when nothing changed).
	Pod *corev1.Pod
	// Patch turns the input Pod into Pod.
	Patch []jsonpatch.JsonPatchOperation
	// Verdicts are what the enforcement policy made of each denial and
	// each mutation rule with something to do (policy data enforcement).
	Verdicts []enforcement.Verdict
}

// Pipeline is the policy evaluation plus the mutators, in order.
type Pipeline struct {
	Engine         *policy.Engine
	Gatherer       *snapshot.Gatherer
	Mutators       []Mutator
	NativeSidecars bool
	// Memo, if set, remembers decisions for repeated inputs (see policy.Memo
	// and NewMemo).
	Memo *Memo
}

// DefaultMutators are Sluice's mutators in the order they run.
func DefaultMutators() []Mutator {
	return []Mutator{sidecar.Mutator{}, apppoststart.Mutator{}, propagation.Mutator{}, affinity.Mutator{}, podmeta.Mutator{}}
}

// Mutate evaluates the policies for req and applies the decision to a copy
// of req.Pod (nothing with req.CheckOnly). A denial is a *decision.DeniedError; a policy or mutator failure is an
// error naming the policy or mutator. In both cases nothing is applied.
func (p *Pipeline) Mutate(ctx context.Context, req Request) (*Result, error) {
	vols, err := p.Gatherer.DatasetVolumes(ctx, req.Namespace, req.Pod)
	if err != nil {
		return nil, fmt.Errorf("reading the Pod's datasets: %w", err)
	}
	ns, err := p.Gatherer.Namespace(ctx, req.Namespace)
	if err != nil {
		return nil, err
	}
	active := p.Engine.Active()
	if active == nil {
		return nil, fmt.Errorf("policy %s failed: %w", policies.MutatingQuery, policy.ErrNotReady)
	}
	dd, err := p.decide(ctx, active, req, vols, ns)
	if err != nil {
		return nil, err
	}
	obj := enforcement.Object{Namespace: req.Namespace, Name: req.Pod.Name, Labels: req.Pod.Labels}
	d, verdicts, annotation := enforce(active.Enforcement(), dd, obj, time.Now(), req.CheckOnly)
	res := &Result{Decision: d, Pod: req.Pod, Verdicts: verdicts}
	if len(d.Deny) > 0 {
		return res, &decision.DeniedError{Denials: d.Deny}
	}
	if req.CheckOnly || d.Empty() {
		return res, nil
	}
	mutated := req.Pod.DeepCopy()
	for _, m := range p.Mutators {
		if err := applySafely(m, mutated, d, vols); err != nil {
			return nil, fmt.Errorf("mutator %s: %w", m.Name(), err)
		}
	}
	// A Pod the mutators changed records what was injected; one they left
	// as it was (the webhook's own output) is left alone, annotation too.
	key := datav1alpha1.AnnotationMutations
	if annotation == "" {
		key = ""
	}
	patch, err := podpatch.DiffAnnotated(req.Pod, mutated, key, annotation)
	if err != nil {
		return nil, err
	}
	res.Pod, res.Patch = mutated, patch
	return res, nil
}

// decide evaluates the mutating policy of the active bundle for the input
// of req, or reuses the decision remembered for an equal input under the
// same deterministic bundle: the policy's own decision, before
// enforcement, which depends on the time (an exception's expiry). The
// returned decision is shared: callers must not modify it.
func (p *Pipeline) decide(ctx context.Context, active *policy.Compiled, req Request, vols []snapshot.DatasetVolume, ns snapshot.Namespace) (*Decided, error) {
	in := NewInput(req, vols, ns, p.NativeSidecars)
	memo := active.Deterministic() && p.Memo.Enabled()
	var hash uint64
	if memo {
		hash = inputHash(&in)
		if d, ok := p.Memo.Get(active.Generation(), hash, &in); ok {
			return d, nil
		}
	}
	input, err := regovalue.ToValue(&in)
	if err != nil {
		return nil, fmt.Errorf("encoding the policy input: %w", err)
	}
	evalStart := time.Now()
	value, err := active.Eval(ctx, policies.MutatingQuery, input)
	metrics.PolicyEvalDuration.WithLabelValues(policies.MutatingQuery).Observe(time.Since(evalStart).Seconds())
	if err != nil {
		return nil, fmt.Errorf("policy %s failed: %w", policies.MutatingQuery, unwrapEval(err))
	}
	d, err := decision.DecodeMutating(value)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", policies.MutatingQuery, err)
	}
	dd := newDecided(d)
	if memo {
		if size := policy.InputSize(input); p.Memo.Admits(size) {
			p.Memo.Put(active.Generation(), hash, memoKey(req, vols, ns, p.NativeSidecars), size, dd)
		}
	}
	return dd, nil
}

// applySafely runs one mutator, turning a panic into an error.
func applySafely(m Mutator, pod *corev1.Pod, d *decision.Mutating, vols []snapshot.DatasetVolume) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return m.Mutate(pod, d, vols)
}

func unwrapEval(err error) error {
	var ee *policy.EvalError
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}
