package webhook

import (
	"context"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/spf13/pflag"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/metrics"
	"github.com/sluice-data/sluice/webhook/policy"
)

// builds counts the specialised queries built for the mutating query, ok
// or not.
func builds(t *testing.T) float64 {
	t.Helper()
	n := 0.0
	for _, result := range []string{"ok", "error"} {
		var m dto.Metric
		if err := metrics.SpecialisedQueries.WithLabelValues(policies.MutatingQuery, result).Write(&m); err != nil {
			t.Fatal(err)
		}
		n += m.GetCounter().GetValue()
	}
	return n
}

// --specialise-policies is on by default: an input of a new class starts
// the build of its query. With --specialise-policies=false no query is
// ever specialised, however many classes of inputs come.
func TestSpecialisePoliciesFlag(t *testing.T) {
	ctx := context.Background()
	bundle, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want bool
	}{{nil, true}, {[]string{"--specialise-policies=false"}, false}} {
		o := NewOptions()
		fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if o.SpecialisePolicies != tt.want {
			t.Fatalf("%v: SpecialisePolicies %v, want %v", tt.args, o.SpecialisePolicies, tt.want)
		}
		engine := newEngine(o)
		if err := engine.Load(ctx, bundle); err != nil {
			t.Fatal(err)
		}
		before := builds(t)
		// Inputs of two classes; whether the policy accepts them does not
		// matter.
		for _, label := range []string{"serverless.fluid.io/inject", "fuse.serverful.fluid.io/inject"} {
			in := ast.MustParseTerm(`{"pod": {"metadata": {"labels": {"` + label + `": "true"}}}}`).Value
			_, _ = engine.Eval(ctx, policies.MutatingQuery, in)
		}
		deadline := time.Now().Add(30 * time.Second)
		if !tt.want {
			deadline = time.Now().Add(time.Second)
		}
		for builds(t) == before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if built := builds(t) > before; built != tt.want {
			t.Errorf("%v: specialised queries built: %v, want %v", tt.args, built, tt.want)
		}
	}
}

// TestRequestLimitFitsAnUpdate (reliability audit L1): an UPDATE review
// carries the object and its old version, so the default body limit must
// admit two objects of the size etcd stores (about 1.5 MiB each) with room
// to spare; it was 3 MiB, and a large object's UPDATE (a finalizer's
// removal included) got 413, which failurePolicy Fail turns into a refusal.
func TestRequestLimitFitsAnUpdate(t *testing.T) {
	if got := NewOptions().MaxRequestBytes; got < 2*(3<<19)+(1<<20) {
		t.Errorf("default --max-request-bytes %d: an UPDATE of a 1.5 MiB object does not fit", got)
	}
}

// TestDisableInjectionOptions: --disable-injection, or Fluid's
// DISABLE_INJECTION set to a true value, disables injection; a
// DISABLE_INJECTION that is not a boolean stops the webhook at start.
func TestDisableInjectionOptions(t *testing.T) {
	for _, tt := range []struct {
		flag, env string // --disable-injection, DISABLE_INJECTION
		disabled  bool
		invalid   bool
	}{
		{"false", "", false, false},
		{"true", "", true, false},
		{"false", "true", true, false},
		{"false", "1", true, false},
		{"true", "false", true, false},
		{"false", "false", false, false},
		{"false", "yes", false, true},
	} {
		t.Setenv(DisableInjectionEnv, tt.env)
		o := NewOptions()
		fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse([]string{"--disable-injection=" + tt.flag}); err != nil {
			t.Fatal(err)
		}
		if got := o.InjectionDisabled(); got != tt.disabled {
			t.Errorf("--disable-injection=%s %s=%q: disabled %v, want %v", tt.flag, DisableInjectionEnv, tt.env, got, tt.disabled)
		}
		if err := o.Validate(); (err != nil) != tt.invalid {
			t.Errorf("--disable-injection=%s %s=%q: Validate() = %v, want invalid %v", tt.flag, DisableInjectionEnv, tt.env, err, tt.invalid)
		}
	}
}

// --quick-eval is on by default: the engine compiles its queries to
// closures when it loads a bundle and evaluates with them first (each
// evaluation counted by who answered it). With --quick-eval=false nothing
// is compiled to closures, OPA evaluates every input, and nothing is
// counted.
func TestQuickEvalFlag(t *testing.T) {
	ctx := context.Background()
	bundle, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	sum := func(c *prometheus.CounterVec, labels ...string) float64 {
		n := 0.0
		for _, l := range labels {
			var m dto.Metric
			if err := c.WithLabelValues(policies.MutatingQuery, l).Write(&m); err != nil {
				t.Fatal(err)
			}
			n += m.GetCounter().GetValue()
		}
		return n
	}
	count := func() float64 { return sum(metrics.QuickEvaluations, "answered", "opa") }
	compiled := func() float64 { return sum(metrics.QuickPrograms, "ok", "not compiled") }
	for _, tt := range []struct {
		args []string
		want float64
	}{{nil, 1}, {[]string{"--quick-eval=false"}, 0}} {
		o := NewOptions()
		fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(append(tt.args, "--specialise-policies=false")); err != nil {
			t.Fatal(err)
		}
		engine := newEngine(o)
		programs := compiled()
		if err := engine.Load(ctx, bundle); err != nil {
			t.Fatal(err)
		}
		if got := compiled() - programs; got != tt.want {
			t.Errorf("%v: the mutating query compiled to closures %v times, want %v", tt.args, got, tt.want)
		}
		before := count()
		_, _ = engine.Eval(ctx, policies.MutatingQuery, ast.MustParseTerm(`{"pod": {"metadata": {"labels": {}}}}`).Value)
		if got := count() - before; got != tt.want {
			t.Errorf("%v: %v evaluations counted, want %v", tt.args, got, tt.want)
		}
	}
}
