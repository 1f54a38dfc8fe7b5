package policies

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestOverlayData: ConfigMaps' data files merge over the base in
// namespace/name and key order whatever the order they come in; Rego keys
// are not data; a ConfigMap with a data file that does not parse is left
// out whole, and its error names it.
func TestOverlayData(t *testing.T) {
	cm := func(ns, name string, data map[string]string) corev1.ConfigMap {
		return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	}
	base := map[string]any{"validating": map[string]any{"operations": map[string]any{"conflicts": map[string]any{"DataLoad": []any{"DataLoad"}}, "engines": "kept"}}}
	cms := []corev1.ConfigMap{
		cm("team", "b", map[string]string{"x.yaml": "validating: {operations: {conflicts: {DataLoad: [DataMigrate]}}}"}),
		cm("platform", "z", map[string]string{"a.yaml": "validating: {operations: {conflicts: {DataLoad: [DataBackup]}}}", "rules.rego": "package x"}),
		cm("team", "a", map[string]string{"ok.yaml": "validating: {operations: {conflicts: {DataBackup: []}}}", "bad.json": "{not json"}),
	}
	data, skipped := OverlayData(base, cms)
	want := map[string]any{"validating": map[string]any{"operations": map[string]any{"conflicts": map[string]any{"DataLoad": []any{"DataMigrate"}}, "engines": "kept"}}}
	if !reflect.DeepEqual(data, want) {
		t.Errorf("data = %v, want %v (team/b last; team/a left out whole)", data, want)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0].Error(), "ConfigMap team/a key bad.json") {
		t.Errorf("skipped = %v, want team/a's bad.json", skipped)
	}
	if c := base["validating"].(map[string]any)["operations"].(map[string]any)["conflicts"].(map[string]any)["DataLoad"]; !reflect.DeepEqual(c, []any{"DataLoad"}) {
		t.Errorf("the base was changed: %v", c)
	}
}
