package trust

import (
	"fmt"
	"strings"

	"github.com/sluice-data/sluice/engines/registry"
)

// The markers around the generated table in docs/security.md.
const (
	BeginMarker = "<!-- BEGIN trust table: generated from trust/table.go by `make generate`; do not edit -->"
	EndMarker   = "<!-- END trust table -->"
)

// Markdown renders the table as every kind's fields resolve: one section
// per kind, one row per table row that classifies a field of it (refused
// fields named by their engine row), with the fields it covers.
func Markdown() string {
	fields := AllFields()
	var b strings.Builder
	for i, kind := range sortedKeys(fields) {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "#### %s\n\n| field | class | where it goes, or why it is safe |\n|---|---|---|\n", kind)
		seen := map[string]bool{}
		for _, p := range fields[kind] {
			r, _ := Classify(kind, p)
			if seen[r.Path+string(r.Class)] {
				continue
			}
			seen[r.Path+string(r.Class)] = true
			class := string(r.Class)
			if r.Class == Guarded {
				class = "guarded: `" + r.Rule + "`"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Path, class, strings.ReplaceAll(note(r), "|", `\|`))
		}
	}
	return b.String()
}

func note(r Row) string {
	if r.Host == nil || r.Host.NetworkAt == "" {
		return r.Note
	}
	when := "is HostNetwork"
	if r.Host.HostByDefault {
		when = "is not ContainerNetwork"
	}
	return r.Note + " (while " + r.Host.NetworkAt + " " + when + ")"
}

// Splice replaces what lies between the markers in doc with Markdown.
func Splice(doc string) (string, error) {
	return registry.SpliceBetween(doc, BeginMarker, EndMarker, Markdown())
}
