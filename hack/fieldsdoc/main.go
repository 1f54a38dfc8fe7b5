package main

import (
	"fmt"
	"os"

	"github.com/sluice-data/sluice/engines/fieldtables"
)

const doc = "docs/engines.md"

func main() {
	raw, err := os.ReadFile(doc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := fieldtables.Splice(string(raw))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", doc, err)
		os.Exit(1)
	}
	if out == string(raw) {
		return
	}
	if err := os.WriteFile(doc, []byte(out), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
