package registry_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/engines/registry"
)

// TestDocsTablesAreCurrent: docs/engines.md shows the field tables as the
// engines define them (make generate rewrites them).
func TestDocsTablesAreCurrent(t *testing.T) {
	raw, err := os.ReadFile("../../docs/engines.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := registry.Splice(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	if want != string(raw) {
		t.Fatal("docs/engines.md's field tables are stale; run make generate")
	}
}

// TestEveryRowIsShown: each kind's section lists each of its fields.
func TestEveryRowIsShown(t *testing.T) {
	md := registry.Markdown()
	for _, tb := range registry.All {
		section := md[strings.Index(md, "#### "+tb.Kind+"\n"):]
		if next := strings.Index(section[1:], "#### "); next >= 0 {
			section = section[:next+1]
		}
		for _, f := range tb.Fields {
			if !strings.Contains(section, "| `"+f.Path+"` |") {
				t.Errorf("%s: %s is not in its table", tb.Kind, f.Path)
			}
		}
	}
}
