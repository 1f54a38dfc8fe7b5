package main

import (
	"fmt"
	"strings"
)

// valuesTable is the Markdown of the values: one table of the top-level
// values that are not mappings, then a heading and a table per mapping.
func valuesTable(sections []section) string {
	var b strings.Builder
	var general []row
	for _, s := range sections {
		if len(s.Rows) == 1 && s.Rows[0].Key == s.Key {
			general = append(general, s.Rows[0])
		}
	}
	b.WriteString("### Top level\n\n")
	writeRows(&b, general)
	for _, s := range sections {
		if len(s.Rows) == 1 && s.Rows[0].Key == s.Key {
			continue
		}
		fmt.Fprintf(&b, "\n### `%s`\n\n%s\n\n", s.Key, cell(s.Comment))
		writeRows(&b, s.Rows)
	}
	return b.String()
}

func writeRows(b *strings.Builder, rows []row) {
	b.WriteString("| Key | Default | Description |\n|-----|---------|-------------|\n")
	for _, r := range rows {
		def := ""
		if r.Default != "" {
			def = "`" + strings.ReplaceAll(r.Default, "|", `\|`) + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", r.Key, def, cell(r.Comment))
	}
}

// cell escapes what would end a table cell or read as HTML.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}
