package policy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const q = "data.t.answer"

func bundleWith(module string) *Bundle {
	b := NewBundle()
	b.Modules["t.rego"] = module
	b.Sources["t.rego"] = "test"
	return b
}

func TestEngineKeepsLastGoodBundle(t *testing.T) {
	ctx := context.Background()
	e := NewEngine(q)
	if e.Ready() {
		t.Fatal("ready before any bundle")
	}
	if _, err := e.Eval(ctx, q, ast.NewObject()); !errors.Is(err, ErrNotReady) {
		t.Fatalf("eval before load: %v", err)
	}
	if err := e.Load(ctx, bundleWith("package t\nanswer := 42")); err != nil {
		t.Fatal(err)
	}
	err := e.Load(ctx, bundleWith("package t\nanswer := undefined_function(1)"))
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "t.rego") {
		t.Fatalf("want a CompileError naming the module, got %v", err)
	}
	v, err := e.Eval(ctx, q, ast.NewObject())
	if err != nil {
		t.Fatal(err)
	}
	if v.(any) == nil || v.(interface{ String() string }).String() != "42" {
		t.Fatalf("answer = %v, want 42 from the last good bundle", v)
	}
}

func TestEvalErrorNamesQuery(t *testing.T) {
	ctx := context.Background()
	e := NewEngine(q)
	if err := e.Load(ctx, bundleWith("package t\nanswer := x if { x := 1 / input.zero }")); err != nil {
		t.Fatal(err)
	}
	input := ast.NewObject(ast.Item(ast.StringTerm("zero"), ast.NumberTerm("0")))
	_, err := e.Eval(ctx, q, input)
	var ee *EvalError
	if !errors.As(err, &ee) || ee.Query != q {
		t.Fatalf("want an EvalError for %s, got %v", q, err)
	}
}

func TestUndefinedResultIsAnError(t *testing.T) {
	ctx := context.Background()
	e := NewEngine(q)
	if err := e.Load(ctx, bundleWith("package t\nanswer := 1 if input.never")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(ctx, q, ast.NewObject()); err == nil {
		t.Fatal("an undefined decision must be an error")
	}
}

func TestFromConfigMapsOverridesModulesAndMergesData(t *testing.T) {
	base := NewBundle()
	base.Modules["mutating/affinity.rego"] = "package a\nx := 1"
	base.Data = map[string]any{"mutating": map[string]any{
		"appPostStart": map[string]any{"timeoutSeconds": 1},
		"sidecar":      map[string]any{"cacheDirVolumes": []any{"cache-dir"}, "mode": "auto"},
	}}
	cms := []corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "z", Name: "later"}, Data: map[string]string{"data.yaml": "mutating: {sidecar: {mode: native}}"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "first"}, Data: map[string]string{
			"mutating__affinity.rego": "package a\nx := 2",
			"extra.rego":              "package extra\ny := 1",
			"data.json":               `{"mutating": {"sidecar": {"mode": "container"}, "mountPropagation": {"enabled": true}}}`,
			"README.md":               "ignored",
		}},
	}
	b, err := FromConfigMaps(base, cms)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Modules["mutating/affinity.rego"]; got != "package a\nx := 2" {
		t.Fatalf("default module not replaced: %q", got)
	}
	if _, ok := b.Modules["configmaps/a/first/extra.rego"]; !ok {
		t.Fatalf("extra module missing: %v", b.ModuleIDs())
	}
	m := b.Data["mutating"].(map[string]any)
	if m["appPostStart"] == nil || m["mountPropagation"].(map[string]any)["enabled"] != true {
		t.Fatalf("data not merged: %v", m)
	}
	if d := m["sidecar"].(map[string]any); d["cacheDirVolumes"] == nil || d["mode"] != "native" {
		t.Fatalf("later ConfigMap must win and siblings stay: %v", d)
	}
	if base.Modules["mutating/affinity.rego"] != "package a\nx := 1" {
		t.Fatal("the base bundle was modified")
	}
	if _, err := FromConfigMaps(base, []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Data: map[string]string{"d.yaml": "a: [unclosed"}}}); err == nil {
		t.Fatal("invalid YAML data must be an error")
	}
	typo := corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "typo"}, Data: map[string]string{"d.yaml": "mutating: {sidecar: {mdoe: native}}"}}
	if _, err := FromConfigMaps(base, []corev1.ConfigMap{typo}); err == nil ||
		!strings.Contains(err.Error(), "ConfigMap a/typo key d.yaml") || !strings.Contains(err.Error(), "mutating.sidecar.mdoe: unknown key") {
		t.Fatalf("data that does not fit the schema: %v, want an error naming the ConfigMap and the key's path", err)
	}
}
