package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/policies"
)

func BenchmarkZZAblation(b *testing.B) {
	t := &testing.T{}
	in := mutatingInput(t, map[string]string{"serverless.fluid.io/inject": "true"}, nil, false)
	main := func(bd *Bundle, section, repl string) {
		m := bd.Modules["mutating/main.rego"]
		bd.Modules["mutating/main.rego"] = strings.Replace(m, section, repl, 1)
	}
	for _, v := range []struct {
		name string
		edit func(*Bundle)
	}{
		{"base", func(*Bundle) {}},
		{"const-mode", func(bd *Bundle) {
			bd.Modules["mutating/sidecar.rego"] = strings.Replace(bd.Modules["mutating/sidecar.rego"], `"mode": sidecar_mode,`, `"mode": "native",`, 1)
		}},
		{"no-deny", func(bd *Bundle) { main(bd, `"deny": deny,`, `"deny": set(),`) }},
		{"no-warnings", func(bd *Bundle) { main(bd, `"warnings": warnings,`, `"warnings": set(),`) }},
		{"no-preferred", func(bd *Bundle) { main(bd, `"preferred": preferred_terms,`, `"preferred": set(),`) }},
		{"no-required", func(bd *Bundle) { main(bd, `"required": required_requirements,`, `"required": set(),`) }},
		{"no-mountprop", func(bd *Bundle) { main(bd, `"mountPropagation": mount_propagation,`, `"mountPropagation": set(),`) }},
		{"no-annotations", func(bd *Bundle) { main(bd, `"annotations": pod_annotations,`, `"annotations": {},`) }},
		{"no-labels", func(bd *Bundle) { main(bd, `"labels": pod_labels,`, `"labels": {},`) }},
		{"no-sidecars", func(bd *Bundle) { main(bd, `"sidecars": sidecars,`, `"sidecars": set(),`) }},
		{"no-rewrites", func(bd *Bundle) { main(bd, `"volumeRewrites": volume_rewrites,`, `"volumeRewrites": set(),`) }},
	} {
		bd, _ := DefaultBundle()
		v.edit(bd)
		wait := true
		c, err := compile(context.Background(), bd, &wait, []string{policies.MutatingQuery})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Eval(context.Background(), policies.MutatingQuery, in); err != nil {
			b.Fatal(err)
		}
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_, _ = c.Eval(context.Background(), policies.MutatingQuery, in)
			}
		})
	}
}
