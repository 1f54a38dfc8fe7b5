package registry

import (
	"fmt"
	"strings"

	"github.com/sluice-data/sluice/engines"
)

// The markers around the generated field tables in docs/engines.md.
const (
	BeginMarker = "<!-- BEGIN field tables: generated from engines/*/fields.go by `make generate`; do not edit -->"
	EndMarker   = "<!-- END field tables -->"
)

// Markdown renders every field table: one section per kind, one row per
// field with what the engine does with it.
func Markdown() string {
	var b strings.Builder
	for i, t := range All {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "#### %s\n\n| field | support | what it does, or why not |\n|---|---|---|\n", t.Kind)
		for _, f := range t.Fields {
			note := f.Note
			if f.ActsOutsideChart != "" {
				note += " (acts in " + f.ActsOutsideChart + ")"
			}
			if f.Check != nil {
				note += "; some values refused"
			}
			if f.Default != "" {
				note += " (the default " + f.Default + " is not warned)"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Path, support(f.Support), strings.ReplaceAll(note, "|", `\|`))
		}
		for _, f := range t.Dataset {
			fmt.Fprintf(&b, "| Dataset `%s` | %s | %s |\n", f.Path, support(f.Support), strings.ReplaceAll(f.Note, "|", `\|`))
		}
	}
	return b.String()
}

func support(s engines.Support) string {
	switch s {
	case engines.Refused:
		return "**refused**"
	case engines.Warned:
		return "warned"
	}
	return "yes"
}

// Splice replaces what lies between the markers in doc with Markdown.
func Splice(doc string) (string, error) {
	return SpliceBetween(doc, BeginMarker, EndMarker, Markdown())
}

// SpliceBetween replaces what lies between the markers begin and end in
// doc with content: the generated sections of docs/.
func SpliceBetween(doc, begin, end, content string) (string, error) {
	b := strings.Index(doc, begin)
	e := strings.Index(doc, end)
	if b < 0 || e < b {
		return "", fmt.Errorf("the document has no %q ... %q section", begin, end)
	}
	return doc[:b+len(begin)] + "\n\n" + content + "\n" + doc[e:], nil
}
