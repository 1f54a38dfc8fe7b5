package chart_test

import (
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/lint/support"
)

// TestLint runs Helm's lint action (what `helm lint --strict` runs) on the
// chart with its defaults and with each golden case's values.
func TestLint(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			l := action.NewLint()
			l.Strict, l.Namespace, l.KubeVersion = true, namespace, &kubeVersion
			res := l.Run([]string{chartDir()}, parseValues(t, tc.values))
			if res.TotalChartsLinted != 1 {
				t.Fatalf("linted %d charts, want 1: %v", res.TotalChartsLinted, res.Errors)
			}
			for _, m := range res.Messages {
				if m.Severity > support.InfoSev {
					t.Errorf("lint: %s", m)
				} else {
					t.Logf("lint: %s", m)
				}
			}
			if action.HasWarningsOrErrors(res) && !t.Failed() {
				t.Errorf("lint errors: %v", res.Errors)
			}
		})
	}
}
