package specialise

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/sluice-data/sluice/policies"
)

// specModule compares input values with constants in every way the
// Specialiser decides (=, ==, !=, negated, both operand orders), in
// partial sets, partial objects, else chains, defaults and functions, and
// also reads the same values in ways it must leave alone.
const specModule = `package t

import rego.v1

mode := "a" if input.labels.mode == "a"
else := "b" if input.labels.mode == "b"
else := "other"

default flag := false

flag if input.labels.flag != "off"

answer := {"sets": sets, "obj": obj, "mode": mode, "flag": flag, "echo": echo, "fn": fn, "neg": neg, "num": num, "ann": ann}

# OPA evaluates a negated != with its input reference outside the
# negation: neg is false, not true, when mode is absent.
default neg := false

neg if not input.labels.mode != "a"

# to_number fails on "abc" before the comparison is reached: the error
# must not disappear with a rule dropped for the class.
default num := false

num if {
	to_number(input.labels.num) > 0
	input.labels.mode != "a"
}

# A deeper rule that partial evaluation puts in a package of its own: the
# object must keep its team key.
ann[key] := "v" if {
	input.labels.mode != "off"
	key := "in-use"
}

ann.team.sub := "t" if input.labels.other == "c"

sets contains "x" if input.labels.mode = "a"

sets contains "y" if { not input.labels.mode == "b"; "c" != input.labels.other }

sets contains "z" if { some k, v in input.labels; k == "mode"; v == "b" }

obj["k"] := "v" if input.labels.flag == "on"

obj[k] := "w" if { k := "dyn"; input.labels.other == "c" }

echo := object.get(input.labels, "mode", "none")

is_a(x) if x == "a"

default fn := false

fn if is_a(input.labels.mode)
`

var specValues = []string{"", "a", "b", "c", "on", "off", "zzz"} // "" stands for absent

func specInput(mode, flag, other, num string) ast.Value {
	labels := ast.NewObject()
	for k, v := range map[string]string{"mode": mode, "flag": flag, "other": other, "num": num} {
		if v != "" {
			labels.Insert(ast.StringTerm(k), ast.StringTerm(v))
		}
	}
	return ast.NewObject(ast.Item(ast.StringTerm("labels"), ast.NewTerm(labels)))
}

// Over every combination of the compared values (absent, equal to a
// constant, another value), the specialised query gives the general
// query's result, or error.
func TestSpecialisedQueryMatchesGeneral(t *testing.T) {
	wait := true
	general := mustCompile(t, bundleWith(specModule), nil, q)
	special := mustCompile(t, bundleWith(specModule), &wait, q)
	if special.spec == nil {
		t.Fatal("the module was not specialised")
	}
	special.spec.limit = len(specValues) * len(specValues) * len(specValues)
	for _, mode := range specValues {
		for _, flag := range specValues {
			for _, other := range specValues {
				for _, num := range []string{"", "5", "abc"} {
					in := specInput(mode, flag, other, num)
					want, got := outcome(general, in), outcome(special, in)
					if _, ok, _ := special.spec.ForInput(context.Background(), in); !ok {
						t.Fatalf("input %v has no specialised query", in)
					}
					if got != want {
						t.Errorf("input %v: specialised %s, general %s", in, got, want)
					}
				}
			}
		}
	}
}

// The default mutating policies give the same decision either way for 300
// random combinations of the values their probes read (each a constant it
// is compared with, another value, or absent).
func TestDefaultPoliciesSpecialised(t *testing.T) {
	ctx := context.Background()
	b := defaultBundle(t)
	wait := true
	general := mustCompile(t, b, nil, policies.MutatingQuery)
	special := mustCompile(t, b, &wait, policies.MutatingQuery)
	spec := special.spec
	if spec == nil {
		t.Fatal("the default mutating query was not specialised")
	}
	var keys []string
	for _, p := range spec.probes {
		keys = append(keys, p.path.String())
	}
	for _, want := range []string{`pod.metadata.labels["serverless.fluid.io/inject"]`, `pod.metadata.labels["fuse.serverful.fluid.io/inject"]`} {
		if !strings.Contains(strings.Join(keys, " "), want) {
			t.Errorf("probes %v lack %s", keys, want)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		doc := mutatingDoc(nil, nil, i%2 == 0)
		var set []string
		for _, p := range spec.probes {
			switch rnd.IntN(3) {
			case 0:
				c, err := ast.JSON(p.consts[rnd.IntN(len(p.consts))])
				if err != nil {
					t.Fatal(err)
				}
				setPath(doc, p.path, c)
				set = append(set, fmt.Sprintf("%v=%v", p.path, c))
			case 1:
				setPath(doc, p.path, "something-else")
				set = append(set, fmt.Sprintf("%v=something-else", p.path))
			default:
				setPath(doc, p.path, nil)
			}
		}
		in, err := ast.InterfaceToValue(doc)
		if err != nil {
			t.Fatal(err)
		}
		want, err := general.eval(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := special.eval(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if got.Compare(want) != 0 {
			t.Fatalf("input with %v: specialised %v, general %v", set, got, want)
		}
	}
	// A class whose query does not build is served by the general query,
	// with the same results: only its build error shows it.
	errs, err := spec.Errors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.variants) < 2 || len(errs) > 0 {
		t.Errorf("%d classes, %d of which did not build: %v", len(spec.variants), len(errs), errs)
	}
	// Both queries' closures answered every input, as OPA did.
	if general.unanswered+special.unanswered > 0 {
		t.Errorf("the closures did not answer %d evaluations of the general query and %d of the specialised ones",
			general.unanswered, special.unanswered)
	}
}

// TestDottedNamespaceIsRefused: a residual's namespace must be one name.
// OPA takes a dotted partial namespace as one key when the specialiser
// partially evaluates the residual again, and every class whose residual
// keeps a default rule failed to build (the sidecar Pods'), silently
// served by the general query. residual.Partial, which makes the residual
// the specialiser is given, refuses such a namespace; the same bundle
// specialises under an undotted one.
func TestDottedNamespaceIsRefused(t *testing.T) {
	modules, compiler, store := compileBundle(t, defaultBundle(t))
	if _, err := partial(policies.MutatingQuery, "prepared.q0", compiler, store); err == nil {
		t.Error("a dotted namespace was accepted")
	}
	pqs, err := partial(policies.MutatingQuery, "prepared_q0", compiler, store)
	if err != nil {
		t.Fatal(err)
	}
	if New(Config{Query: policies.MutatingQuery, Residual: pqs, Modules: modules, Compiler: compiler, Store: store}) == nil {
		t.Error("no specialiser for the default bundle's mutating query")
	}
}

// setPath sets the value at path (string keys) in doc, creating objects on
// the way; a nil v deletes it.
func setPath(doc map[string]any, path ast.Ref, v any) {
	for i, t := range path {
		k := string(t.Value.(ast.String))
		if i == len(path)-1 {
			if v == nil {
				delete(doc, k)
			} else {
				doc[k] = v
			}
			return
		}
		next, ok := doc[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			doc[k] = next
		}
		doc = next
	}
}

func mutatingInput(t *testing.T, labels, annotations map[string]string, subPath bool) ast.Value {
	t.Helper()
	v, err := ast.InterfaceToValue(mutatingDoc(labels, annotations, subPath))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// mutatingDoc is a mutating input document: a Pod with the given labels and
// annotations using one Bound dataset.
func mutatingDoc(labels, annotations map[string]string, subPath bool) map[string]any {
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	sub := ""
	if subPath {
		sub = "train"
	}
	return map[string]any{
		"request":   map[string]any{"operation": "CREATE", "namespace": "team-a", "user": map[string]any{"username": "u", "groups": []any{}}, "dryRun": false},
		"namespace": map[string]any{"name": "team-a", "labels": map[string]any{}},
		"cluster":   map[string]any{"nativeSidecars": true},
		"pod": map[string]any{
			"metadata": map[string]any{"name": "p", "namespace": "team-a", "labels": stringMap(labels), "annotations": stringMap(annotations)},
			"spec":     map[string]any{"nodeSelector": map[string]any{"topology.kubernetes.io/zone": "zone-a"}},
		},
		"datasetVolumes": []any{map[string]any{
			"volume": "data", "claim": "ds",
			"dataset": map[string]any{
				"namespace": "team-a", "name": "ds", "phase": "Bound",
				"labels": map[string]any{"cache": "fluid.io/s-team-a-ds", "fuse": "fluid.io/f-team-a-ds", "sched": "fluid.io/dataset.ds.sched"},
				"localities": map[string]any{
					"fluid.io/node":               []any{map[string]any{"key": "fluid.io/s-team-a-ds", "operator": "In", "values": []any{"true"}}},
					"topology.kubernetes.io/zone": []any{map[string]any{"key": "topology.kubernetes.io/zone", "operator": "In", "values": []any{"zone-a"}}},
				},
				"runtime": map[string]any{"type": "juicefs", "name": "ds", "namespace": "team-a", "fuse": true, "fuseNodeSelector": map[string]any{"pool": "gpu"}},
				"volume":  map[string]any{"fluidPath": "/runtime-mnt/juicefs/team-a/ds/juicefs-fuse", "subPath": sub, "mountType": "fuse.juicefs"},
			},
		}},
	}
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// The specialised query does less: rules that cannot hold for the class
// are gone, and a section none of whose rules can hold is a constant.
func TestSpecialisationFoldsRules(t *testing.T) {
	b := defaultBundle(t)
	wait := true
	c := mustCompile(t, b, &wait, policies.MutatingQuery)
	in := mutatingInput(t, map[string]string{"fuse.serverful.fluid.io/inject": "true"}, nil, false)
	special, ok, _ := c.spec.ForInput(context.Background(), in)
	if !ok {
		t.Fatal("no specialised query")
	}
	// The sidecar marker label can only be added for sidecar Pods.
	if n := rulesEntered(t, special.Query, in, "pod_labels"); n != 0 {
		t.Errorf("the specialised query entered %d pod_labels rules for an affinity Pod, want none", n)
	}
	if g, s := virtualMisses(t, c.general, in), virtualMisses(t, special.Query, in); s >= g {
		t.Errorf("the specialised query evaluated %d rule documents, the general one %d; want fewer", s, g)
	}
}

// A class's first evaluation without waiting uses the general query and
// starts the build; later evaluations of the class use the specialised one.
func TestSpecialisationInBackground(t *testing.T) {
	ctx := context.Background()
	wait := false
	c := mustCompile(t, bundleWith(specModule), &wait, q)
	spec := c.spec
	in := specInput("a", "on", "c", "")
	first, err := c.eval(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	v := spec.variant(classOf(spec.probes, in))
	<-v.done
	if v.err != nil {
		t.Fatal(v.err)
	}
	if _, ok, _ := spec.ForInput(context.Background(), in); !ok {
		t.Fatal("no specialised query after the build")
	}
	again, err := c.eval(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if first.Compare(again) != 0 {
		t.Errorf("general %v, specialised %v", first, again)
	}
}

// Past maxVariants classes, inputs use the general query, and get the same
// results.
func TestSpecialisationBoundsVariants(t *testing.T) {
	ctx := context.Background()
	var rules strings.Builder
	rules.WriteString("package t\nimport rego.v1\n")
	for i := range maxVariants + 6 {
		fmt.Fprintf(&rules, "answer contains %d if input.n == %d\n", i, i)
	}
	wait := true
	c := mustCompile(t, bundleWith(rules.String()), &wait, q)
	specialised := 0
	for i := range maxVariants + 6 {
		in := ast.NewObject(ast.Item(ast.StringTerm("n"), ast.IntNumberTerm(i)))
		got, err := c.eval(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if want := ast.NewSet(ast.IntNumberTerm(i)); got.Compare(want) != 0 {
			t.Fatalf("n=%d: got %v, want %v", i, got, want)
		}
		if _, ok, _ := c.spec.ForInput(context.Background(), in); ok {
			specialised++
		}
	}
	if specialised != maxVariants {
		t.Errorf("%d classes specialised, want %d", specialised, maxVariants)
	}
}

// Where a module evaluates with another input, classes computed from the
// request's input do not apply: nothing is specialised.
func TestNoSpecialisationWithInputReplaced(t *testing.T) {
	wait := true
	c := mustCompile(t, bundleWith(`package t
import rego.v1
inner if input.x == "a"
answer := {"outer": inner, "replaced": r}
r := true if inner with input as {"x": "a"}
else := false`), &wait, q)
	if c.spec != nil {
		t.Error("a bundle that replaces the input was specialised")
	}
}

// A comparison with an undefined operand is undefined whatever the
// operator: != does not hold for an absent value.
func TestProbeDecidesUndefined(t *testing.T) {
	p := probe{path: ast.MustParseRef("input.x")[1:], consts: []ast.Value{ast.String("a")}}
	undefined := p.class(ast.NewObject())
	for _, op := range []string{ast.Equality.Name, ast.Equal.Name, ast.NotEqual.Name} {
		if p.decided(op, undefined, ast.String("a")) {
			t.Errorf("%s with an undefined operand holds", op)
		}
	}
	other := p.class(ast.NewObject(ast.Item(ast.StringTerm("x"), ast.StringTerm("b"))))
	if !p.decided(ast.NotEqual.Name, other, ast.String("a")) || p.decided(ast.Equal.Name, other, ast.String("a")) {
		t.Error("b compared with a decided wrongly")
	}
}

// A reference alone holds when it is defined and not false; the specialised
// query agrees for false, true, other values and undefined.
func TestSpecialisedBareReference(t *testing.T) {
	ctx := context.Background()
	module := `package t
import rego.v1
default x := false
x if input.e
default y := false
y if not input.e
answer := {"x": x, "y": y}`
	wait := true
	general := mustCompile(t, bundleWith(module), nil, q)
	special := mustCompile(t, bundleWith(module), &wait, q)
	if special.spec == nil {
		t.Fatal("the module was not specialised")
	}
	for _, e := range []*ast.Term{nil, ast.BooleanTerm(true), ast.BooleanTerm(false), ast.StringTerm("s"), ast.IntNumberTerm(0)} {
		in := ast.NewObject()
		if e != nil {
			in.Insert(ast.StringTerm("e"), e)
		}
		want, err := general.eval(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := special.eval(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if got.Compare(want) != 0 {
			t.Errorf("e=%v: specialised %v, general %v", e, got, want)
		}
	}
}

// virtualMisses counts the rule documents an evaluation of pq computes.
func virtualMisses(t *testing.T, pq rego.PreparedEvalQuery, in ast.Value) uint64 {
	t.Helper()
	m := metrics.New()
	if _, err := pq.Eval(context.Background(), rego.EvalParsedInput(in), rego.EvalMetrics(m), rego.EvalInstrument(true)); err != nil {
		t.Fatal(err)
	}
	n, _ := m.All()["counter_eval_op_virtual_cache_miss"].(uint64)
	return n
}

// rulesEntered counts the rules named name an evaluation of pq enters.
func rulesEntered(t *testing.T, pq rego.PreparedEvalQuery, in ast.Value, name string) int {
	t.Helper()
	tracer := topdown.NewBufferTracer()
	if _, err := pq.Eval(context.Background(), rego.EvalParsedInput(in), rego.EvalQueryTracer(tracer)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range *tracer {
		if r, rule := e.Node.(*ast.Rule); rule && e.Op == topdown.EnterOp && r.Head.Ref()[0].Value.Compare(ast.Var(name)) == 0 {
			n++
		}
	}
	return n
}

// An object whose rules have constant keys and cannot hold for the class is
// folded to {}: the specialised query computes no rule document at all.
// (The key is a label key, as in the default policies; a key that is a
// valid identifier partial evaluation writes as a rule of its own, in a
// package named after the object, which is left as it is.)
func TestSpecialisationFoldsObjects(t *testing.T) {
	wait := true
	c := mustCompile(t, bundleWith(`package t
import rego.v1
obj[key] := "v" if {
	input.m == "a"
	key := "example.com/k"
}
answer := {"obj": obj}`), &wait, q)
	in := ast.NewObject(ast.Item(ast.StringTerm("m"), ast.StringTerm("b")))
	special, ok, err := c.spec.ForInput(context.Background(), in)
	if !ok || err != nil {
		t.Fatalf("no specialised query: %v", err)
	}
	if n := rulesEntered(t, special.Query, in, "obj"); n != 0 {
		t.Errorf("the specialised query entered %d rules of obj, want none (obj folded to {})", n)
	}
	if got := outcome(c, in); got != `{"obj": {}}` {
		t.Errorf("got %s", got)
	}
}

// A class whose query cannot be built (here the second partial evaluation
// meets conflicting object keys, in a part the input never reaches) keeps
// the general query, also when evaluations wait for the build.
func TestSpecialisationBuildErrorKeepsGeneralQuery(t *testing.T) {
	module := `package t
import rego.v1
obj[key] := 1 if { key := "k"; input.a != "z" }
obj[key] := 2 if { key := "k"; input.b == "y" }
default o := {}
o := obj if input.n > 3
answer := o`
	in, err := ast.ValueFromReader(strings.NewReader(`{"a": "o", "b": "y", "n": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	wait := true
	general := mustCompile(t, bundleWith(module), nil, q)
	special := mustCompile(t, bundleWith(module), &wait, q)
	if got, want := outcome(special, in), outcome(general, in); got != want {
		t.Errorf("specialising engine: %s, general: %s", got, want)
	}
	spec := special.spec
	if v := spec.variant(classOf(spec.probes, in)); v.err == nil {
		t.Error("the class's query was built; the test no longer covers a failed build")
	}
	if errs, err := spec.Errors(context.Background()); err != nil || len(errs) != 1 {
		t.Errorf("build errors %v (%v), want the class's", errs, err)
	}
}

// Classes built at the same time, while other inputs are evaluated, give
// the general query's results (run with -race: builds share OPA state).
func TestConcurrentSpecialisation(t *testing.T) {
	wait := false
	general := mustCompile(t, bundleWith(specModule), nil, q)
	special := mustCompile(t, bundleWith(specModule), &wait, q)
	var inputs []ast.Value
	for _, mode := range []string{"", "a", "b"} {
		for _, flag := range []string{"", "on", "off"} {
			inputs = append(inputs, specInput(mode, flag, "c", "5"))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(inputs)*20)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				in := inputs[(w+i)%len(inputs)]
				if got, want := outcome(special, in), outcome(general, in); got != want {
					errs <- fmt.Sprintf("input %v: %s, want %s", in, got, want)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	spec := special.spec
	for _, in := range inputs {
		v := spec.variant(classOf(spec.probes, in))
		<-v.done
		if v.err != nil {
			t.Errorf("building the query of %v: %v", in, v.err)
		}
	}
}
