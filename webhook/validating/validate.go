package validating

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/internal/regovalue"
	"github.com/sluice-data/sluice/webhook/metrics"
	"github.com/sluice-data/sluice/webhook/policy"
)

// Request is one object to validate.
type Request struct {
	// Kind is the object's kind, e.g. DataLoad or JuiceFSRuntime.
	Kind      string
	Operation string
	Namespace string
	User      authenticationv1.UserInfo
	DryRun    bool
	// Object and Raw are the admitted object, decoded and as JSON.
	Object client.Object
	Raw    []byte
	// Old and OldRaw are the previous object on UPDATE.
	Old    client.Object
	OldRaw []byte
}

// ExclusiveRule names the denial of an operation whose Dataset is held.
const ExclusiveRule = "operation-exclusive"

// Pipeline is the validating policy evaluation plus the claims.
type Pipeline struct {
	Engine   *policy.Engine
	Gatherer *Gatherer
	// Claimer records Dataset claims; nil checks policies only (the
	// `sluice policy eval` command).
	Claimer *claim.Claimer
}

// Validate evaluates the policies for req and records the claims they ask
// for. A denial is a *decision.DeniedError; a policy failure is an error naming the
// policy. The returned decision carries the warnings.
func (p *Pipeline) Validate(ctx context.Context, req Request) (*decision.Validating, error) {
	active := p.Engine.Active()
	if active == nil {
		return nil, fmt.Errorf("policy %s failed: %w", policies.ValidatingQuery, policy.ErrNotReady)
	}
	facts, err := p.Gatherer.Facts(ctx, req.Kind, req.Object, req.Old, hasBudget(active, req.Namespace))
	if err != nil {
		return nil, fmt.Errorf("gathering facts: %w", err)
	}
	input, err := buildInput(req, facts)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	value, err := active.Eval(ctx, policies.ValidatingQuery, input)
	metrics.PolicyEvalDuration.WithLabelValues(policies.ValidatingQuery).Observe(time.Since(start).Seconds())
	if err != nil {
		var ee *policy.EvalError
		if errors.As(err, &ee) {
			err = ee.Err
		}
		return nil, fmt.Errorf("policy %s failed: %w", policies.ValidatingQuery, err)
	}
	d, err := decision.DecodeValidating(value)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", policies.ValidatingQuery, err)
	}
	var warned []string
	d.Deny, warned, d.Verdicts = decision.EnforceDenials(active.Enforcement(), d.Deny, enforcedObject(req), time.Now())
	d.Warnings = append(d.Warnings, warned...)
	if len(d.Deny) > 0 {
		return d, &decision.DeniedError{Denials: d.Deny}
	}
	if p.Claimer == nil {
		return d, nil
	}
	for _, c := range d.Claims {
		ns, name, _ := strings.Cut(c.Dataset, "/")
		err := p.Claimer.Claim(ctx, claim.Request{
			Dataset: types.NamespacedName{Namespace: ns, Name: name}, Kind: c.Kind, Name: req.Object.GetName(),
			Conflicts: c.Conflicts, DryRun: req.DryRun,
		})
		var held *claim.HeldError
		var missing *claim.NotFoundError
		switch {
		case errors.As(err, &held):
			return d, &decision.DeniedError{Denials: []decision.Denial{{Rule: ExclusiveRule, Message: held.Error()}}}
		case errors.As(err, &missing):
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s; the operation waits, and the Dataset is claimed when it exists", missing.Error()))
		case err != nil:
			return nil, err
		}
	}
	return d, nil
}

// enforcedObject is what enforcement exceptions match of req's object:
// the request's namespace, the object's name and labels.
func enforcedObject(req Request) enforcement.Object {
	obj := enforcement.Object{Namespace: req.Namespace}
	if req.Object != nil && !reflect.ValueOf(req.Object).IsNil() {
		obj.Name, obj.Labels = req.Object.GetName(), req.Object.GetLabels()
	}
	return obj
}

// hasBudget reports whether the active policy data sets a cache budget for
// the namespace, so that the namespace's usage is worth gathering.
func hasBudget(c *policy.Compiled, namespace string) bool {
	v, _ := c.Data()["validating"].(map[string]any)
	b, _ := v["budgets"].(map[string]any)
	_, ok := b[namespace]
	return ok
}

// buildInput assembles the policy input: the request, the kind, the object
// and old object (converted from their decoded form, which is cheaper than
// parsing the JSON again), and the facts.
func buildInput(req Request, facts Facts) (ast.Value, error) {
	obj, err := objectValue(req.Object, req.Raw)
	if err != nil {
		return nil, fmt.Errorf("the object for the policy input: %w", err)
	}
	old, err := objectValue(req.Old, req.OldRaw)
	if err != nil {
		return nil, fmt.Errorf("the old object for the policy input: %w", err)
	}
	f, err := regovalue.ToValue(&facts)
	if err != nil {
		return nil, err
	}
	groups := make([]*ast.Term, len(req.User.Groups))
	for i, g := range req.User.Groups {
		groups[i] = ast.StringTerm(g)
	}
	return ast.NewObject(
		ast.Item(ast.StringTerm("request"), ast.ObjectTerm(
			ast.Item(ast.StringTerm("operation"), ast.StringTerm(req.Operation)),
			ast.Item(ast.StringTerm("namespace"), ast.StringTerm(req.Namespace)),
			ast.Item(ast.StringTerm("dryRun"), ast.BooleanTerm(req.DryRun)),
			ast.Item(ast.StringTerm("user"), ast.ObjectTerm(
				ast.Item(ast.StringTerm("username"), ast.StringTerm(req.User.Username)),
				ast.Item(ast.StringTerm("groups"), ast.ArrayTerm(groups...)),
			)),
		)),
		ast.Item(ast.StringTerm("kind"), ast.StringTerm(req.Kind)),
		ast.Item(ast.StringTerm("object"), ast.NewTerm(obj)),
		ast.Item(ast.StringTerm("oldObject"), ast.NewTerm(old)),
		ast.Item(ast.StringTerm("facts"), ast.NewTerm(f)),
	), nil
}

// objectValue converts a decoded object, or parses raw when there is none.
func objectValue(obj client.Object, raw []byte) (ast.Value, error) {
	if obj != nil && !reflect.ValueOf(obj).IsNil() {
		return regovalue.ToCompactValue(obj)
	}
	if len(raw) == 0 {
		return ast.NullValue, nil
	}
	return ast.ValueFromReader(bytes.NewReader(raw))
}
