package monitoring

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Paths of the prometheus-adapter configuration and the HPA sample,
// relative to the repository.
const (
	AdapterConfigPath = "config/prometheus-adapter/adapter-config.yaml"
	HPAPath           = "config/prometheus-adapter/hpa.yaml"
)

// AdapterRule is one rule of prometheus-adapter's configuration (the
// fields the tests read).
type AdapterRule struct {
	SeriesQuery string `json:"seriesQuery"`
	Resources   struct {
		Overrides map[string]struct {
			Group    string `json:"group"`
			Resource string `json:"resource"`
		} `json:"overrides"`
	} `json:"resources"`
	Name struct {
		Matches string `json:"matches"`
		As      string `json:"as"`
	} `json:"name"`
	MetricsQuery string `json:"metricsQuery"`
}

// AdapterRules reads the rules of the adapter's ConfigMap (its
// config.yaml).
func AdapterRules() ([]AdapterRule, error) {
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), AdapterConfigPath))
	if err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{}
	if err := yaml.UnmarshalStrict(raw, cm); err != nil {
		return nil, fmt.Errorf("%s: %w", AdapterConfigPath, err)
	}
	var cfg struct {
		Rules []AdapterRule `json:"rules"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["config.yaml"]), &cfg); err != nil {
		return nil, fmt.Errorf("%s: config.yaml: %w", AdapterConfigPath, err)
	}
	if len(cfg.Rules) == 0 {
		return nil, fmt.Errorf("%s: no rules in config.yaml", AdapterConfigPath)
	}
	return cfg.Rules, nil
}

// Query is the rule's metricsQuery as the adapter sends it to
// Prometheus for one object: its template filled in with the series name,
// the object's label matchers (label="value" per resource override) and
// the labels it groups by.
func (r AdapterRule) Query(series string, object map[string]string) (string, error) {
	t, err := template.New("metricsQuery").Delims("<<", ">>").Option("missingkey=error").Parse(r.MetricsQuery)
	if err != nil {
		return "", err
	}
	var matchers, groupBy []string
	for _, label := range slices.Sorted(maps.Keys(object)) {
		matchers = append(matchers, fmt.Sprintf("%s=%q", label, object[label]))
		groupBy = append(groupBy, label)
	}
	var b strings.Builder
	err = t.Execute(&b, map[string]string{"Series": series, "LabelMatchers": strings.Join(matchers, ","), "GroupBy": strings.Join(groupBy, ",")})
	return b.String(), err
}
