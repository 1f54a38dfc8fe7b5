package helm

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestRenderKeepsTheOrderOfOneTemplatesObjects: the objects one template
// renders in a range come out in the order Helm rendered them, every time
// (Render used to join them in map order, so golden files of a range
// flaked).
func TestRenderKeepsTheOrderOfOneTemplatesObjects(t *testing.T) {
	c := chartOf("0.1.0", map[string]string{"cms.yaml": `{{- range .Values.names }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ . }}
{{- end }}
`})
	var names []any
	var want []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("cm-%02d", i))
		want = append(want, fmt.Sprintf("name: cm-%02d", i))
	}
	for range 20 {
		out, err := Render(context.Background(), c, map[string]any{"names": names}, "r", "team-a")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(out["templates/cms.yaml"], "\n") {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "name: ") {
				got = append(got, l)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("rendered objects in the order %v, want %v", got, want)
		}
	}
}
