package policycmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestTestCommandChecksDataAgainstTheSchema: `sluice policy test DIR`
// fails a directory whose policy data does not fit the schema, naming the
// file and the key's path, before anything is deployed (issue 33, point 4).
func TestTestCommandChecksDataAgainstTheSchema(t *testing.T) {
	dir := writeTree(t, map[string]string{"affinity.yaml": "mutating:\n  affinity:\n    allDatasetPod: true\n"})
	var out bytes.Buffer
	err := runTests(context.Background(), &out, []string{dir}, testOptions{skipDefaults: true})
	var exit *ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("runTests: %v, want a failure\n%s", err, out.String())
	}
	for _, want := range []string{"FAIL bundle " + dir, "policy data affinity.yaml (" + dir + "): does not fit the policy data schema",
		"mutating.affinity.allDatasetPod: unknown key"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output does not say %q:\n%s", want, out.String())
		}
	}
}
