package guardcheck

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/trust"
	"github.com/sluice-data/sluice/trust/guards"
)

// Denial is a guard rule's denial: the rule and its message, which names
// the field.
type Denial struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func (d Denial) String() string { return d.Message + " (rule " + d.Rule + ")" }

// Checker judges objects with the guard rules. It is safe for concurrent
// use.
type Checker struct {
	// Data returns the policy data as the webhook serves it (the default
	// data with the platform's policy ConfigMaps over it).
	Data func(ctx context.Context) (map[string]any, error)
	// Reader reads the ThinRuntimeProfile a ThinRuntime names, to judge
	// its overrides (thin-override).
	Reader client.Reader
	// MaxAge is how long the policy data Data returned is used before it
	// is read again (a denial is always confirmed with data read then); 0
	// reads it at every check.
	MaxAge time.Duration

	mu       sync.Mutex
	digest   [sha256.Size]byte
	prepared *rego.PreparedEvalQuery
	data     map[string]any
	readAt   time.Time
}

// skipped are the guard rules the controller leaves to admission: the
// cache budget is a namespace's sum at one moment, not a property of the
// object.
var skipped = []string{"namespace-cache-budget"}

// Rules are the rules Check reports.
func Rules() []string {
	var out []string
	for _, r := range trust.Rules() {
		if !slices.Contains(skipped, r) {
			out = append(out, r)
		}
	}
	return out
}

// Check judges each object (a runtime, a Dataset or a data operation) and
// returns every guard denial, in order. Denials found with policy data
// read before (MaxAge) are confirmed with the data as it is now, so that
// what the platform has just admitted is not refused.
func (c *Checker) Check(ctx context.Context, objs ...client.Object) ([]Denial, error) {
	ds, fresh, err := c.check(ctx, false, objs)
	if err == nil && len(ds) > 0 && !fresh {
		ds, _, err = c.check(ctx, true, objs)
	}
	return ds, err
}

func (c *Checker) check(ctx context.Context, reread bool, objs []client.Object) ([]Denial, bool, error) {
	data, fresh, err := c.policyData(ctx, reread)
	if err != nil {
		return nil, false, err
	}
	q, err := c.query(ctx, data)
	if err != nil {
		return nil, false, err
	}
	// The enforcement section applies as at admission: a rule in warn or
	// dryrun mode, or an exception covering the object, refuses nothing.
	enforced, err := enforcement.Parse(data[enforcement.Key])
	if err != nil {
		return nil, false, fmt.Errorf("the policy data: %w", err)
	}
	now := time.Now()
	rules := Rules()
	var out []Denial
	for _, obj := range objs {
		at := enforcement.Object{Namespace: obj.GetNamespace(), Name: obj.GetName(), Labels: obj.GetLabels()}
		input, err := c.input(ctx, obj)
		if err != nil {
			return nil, false, err
		}
		rs, err := q.Eval(ctx, rego.EvalInput(input))
		if err != nil {
			return nil, false, fmt.Errorf("judging %s with the guard rules: %w", input["kind"], err)
		}
		var found []Denial
		for _, r := range rs {
			for _, e := range r.Expressions {
				raw, _ := json.Marshal(e.Value)
				var ds []Denial
				if err := json.Unmarshal(raw, &ds); err != nil {
					return nil, false, fmt.Errorf("the guard rules' denials: %w", err)
				}
				for _, d := range ds {
					if slices.Contains(rules, d.Rule) && enforced.Judge(d.Rule, d.Message, at, now).Outcome == enforcement.Denied {
						found = append(found, d)
					}
				}
			}
		}
		sort.Slice(found, func(i, j int) bool { return found[i].Message < found[j].Message })
		out = append(out, found...)
	}
	return out, fresh, nil
}

// Refuse is Check as an engines.Invalid error naming every denial (nil
// when there is none), the reconcile-time half of the webhook's guards.
func (c *Checker) Refuse(ctx context.Context, objs ...client.Object) error {
	ds, err := c.Check(ctx, objs...)
	if err != nil || len(ds) == 0 {
		return err
	}
	msgs := make([]string, len(ds))
	for i, d := range ds {
		msgs[i] = d.String()
	}
	rules := make([]string, len(ds))
	for i, d := range ds {
		rules[i] = d.Rule
	}
	return engines.Invalid("the platform's guards refuse it (the validating webhook would have): %s; %s", strings.Join(msgs, "; "), enforcement.ExceptionHint(rules))
}

// input is the admission input of a CREATE of obj with its guard facts:
// every value is judged, none is unchanged.
func (c *Checker) input(ctx context.Context, obj client.Object) (map[string]any, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	facts := guards.Of(obj)
	if rt, ok := obj.(*datav1alpha1.ThinRuntime); ok && rt.Spec.ProfileName != "" {
		if facts.Thin, err = c.thin(ctx, rt); err != nil {
			return nil, err
		}
	}
	return map[string]any{
		"request": map[string]any{"operation": "CREATE", "namespace": obj.GetNamespace(), "dryRun": false,
			"user": map[string]any{"username": "system:sluice:controller", "groups": []any{}}},
		"kind":      kindOf(obj),
		"object":    u,
		"oldObject": nil,
		"facts":     map[string]any{"guards": facts}, // OPA reads it by its JSON tags
	}, nil
}

func (c *Checker) thin(ctx context.Context, rt *datav1alpha1.ThinRuntime) (*guards.ThinFacts, error) {
	profile := &datav1alpha1.ThinRuntimeProfile{}
	if err := c.Reader.Get(ctx, types.NamespacedName{Name: rt.Spec.ProfileName}, profile); client.IgnoreNotFound(err) != nil {
		return nil, fmt.Errorf("reading ThinRuntimeProfile %s: %w", rt.Spec.ProfileName, err)
	} else if err != nil {
		profile = nil
	}
	return guards.ThinOf(profile, rt), nil
}

// kindOf is the kind of a data.fluid.io object: its Go type's name.
func kindOf(obj client.Object) string {
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	t := fmt.Sprintf("%T", obj)
	return t[strings.LastIndex(t, ".")+1:]
}

// policyData is Data's answer, read again once MaxAge has passed or
// when reread; fresh says it was read now.
func (c *Checker) policyData(ctx context.Context, reread bool) (data map[string]any, fresh bool, err error) {
	c.mu.Lock()
	if !reread && c.data != nil && time.Since(c.readAt) < c.MaxAge {
		defer c.mu.Unlock()
		return c.data, false, nil
	}
	c.mu.Unlock()
	if data, err = c.Data(ctx); err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	c.data, c.readAt = data, time.Now()
	c.mu.Unlock()
	return data, true, nil
}

// query prepares the validating decision's deny set over data, once per
// distinct data.
func (c *Checker) query(ctx context.Context, data map[string]any) (*rego.PreparedEvalQuery, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256(raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prepared != nil && digest == c.digest {
		return c.prepared, nil
	}
	opts := []func(*rego.Rego){
		rego.Query(policies.ValidatingQuery + ".deny"),
		rego.Store(inmem.NewFromObject(map[string]any{"sluice": map[string]any{"config": data}})),
		rego.SetRegoVersion(ast.RegoV1),
	}
	modules, err := fs.Glob(policies.FS, "validating/*.rego")
	if err != nil {
		return nil, err
	}
	for _, m := range modules {
		if strings.HasSuffix(m, "_test.rego") {
			continue
		}
		text, err := fs.ReadFile(policies.FS, m)
		if err != nil {
			return nil, err
		}
		opts = append(opts, rego.Module(path.Join("policies", m), string(text)))
	}
	q, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("preparing the guard rules: %w", err)
	}
	c.prepared, c.digest = &q, digest
	return c.prepared, nil
}
