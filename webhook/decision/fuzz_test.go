package decision

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// decisionSeeds are decision documents of both kinds, well-formed and not.
var decisionSeeds = []string{
	`{}`,
	`{"deny": [{"rule": "r", "message": "m"}], "warnings": ["w"]}`,
	`{"affinity": {"required": [{"key": "k", "operator": "In", "values": ["true"]}],
	  "preferred": [{"weight": 50, "preference": {"matchExpressions": [{"key": "z", "operator": "Exists"}], "matchFields": []}}]}}`,
	`{"mountPropagation": [{"volume": "data", "mode": "HostToContainer"}, {"volume": "data", "mode": "Bidirectional"}]}`,
	`{"annotations": {"a": "b"}, "labels": {"c": "d"}, "volumeRewrites": [{"volume": "data", "hostPath": "/mnt"}]}`,
	`{"sidecars": [{"volume": "data", "dataset": "ns/d", "mountPath": "/mnt", "mode": "native", "unprivileged": true,
	  "readinessGate": false, "env": [{"name": "A", "value": "1"}], "resources": {"limits": {"memory": "2Gi", "cpu": 1}},
	  "uniqueHostPath": true, "dropVolumes": ["cache-dir"], "exitWithApps": true}]}`,
	`{"appPostStart": [{"container": "app", "mountPaths": ["/data"], "timeoutSeconds": 60}]}`,
	`{"claims": [{"dataset": "d", "kind": "DataLoad"}], "deny": [], "warnings": []}`,
	`{"affinity": {"preferred": [{"weight": 1e3}]}}`,
	`{"affinity": {"preferred": [{"weight": 4294967296}]}}`,
	`{"sidecars": [{"resources": {"limits": {"cpu": "-1"}}}]}`,
	`[1, "a", null]`,
}

// FuzzDecode feeds arbitrary JSON documents, as Rego values, to both
// decoders. A decoder never panics; it fails with the schema error naming a
// path, or returns a decision that, written as JSON the way the schema
// spells it and decoded again, is the same decision: nothing it accepted
// was dropped or changed on the way.
func FuzzDecode(f *testing.F) {
	for _, s := range decisionSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		v, err := ast.ValueFromReader(bytes.NewReader(doc))
		if err != nil {
			return
		}
		m, err := DecodeMutating(v)
		checkDecoded(t, "mutating", doc, m, err, func(v ast.Value) (any, error) { return DecodeMutating(v) })
		val, err := DecodeValidating(v)
		checkDecoded(t, "validating", doc, val, err, func(v ast.Value) (any, error) { return DecodeValidating(v) })
	})
}

func checkDecoded[T any](t *testing.T, kind string, doc []byte, d *T, err error, decode func(ast.Value) (any, error)) {
	t.Helper()
	if err != nil {
		if d != nil {
			t.Fatalf("%s: an error (%v) with a decision %+v", kind, err, d)
		}
		if !strings.HasPrefix(err.Error(), "the decision document does not match the decision schema: ") {
			t.Fatalf("%s: the error does not say it is the schema's: %v", kind, err)
		}
		return
	}
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatalf("%s: the decision of %s does not marshal: %v", kind, doc, err)
	}
	v, err := ast.ValueFromReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	again, err := decode(v)
	if err != nil {
		t.Fatalf("%s: %s decoded, but its decision written as %s does not: %v", kind, doc, raw, err)
	}
	if !reflect.DeepEqual(normalised(t, again), normalised(t, d)) {
		t.Fatalf("%s: %s decoded to %+v, which written as %s decodes to %+v", kind, doc, d, raw, again)
	}
}

// normalised is a decision as JSON read back into generic values, so that
// an empty list and no list (which the schema does not tell apart), and two
// spellings of one quantity, compare equal.
func normalised(t *testing.T, d any) any {
	t.Helper()
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
