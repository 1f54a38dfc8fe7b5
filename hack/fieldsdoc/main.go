// Command fieldsdoc writes the generated tables of docs/: the engines'
// field tables into docs/engines.md, the tenant trust table into
// docs/security.md and the rule reference into docs/policies.md.
package main

import (
	"fmt"
	"os"

	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/trust"
	"github.com/sluice-data/sluice/webhook/policy/catalogue"
)

func main() {
	for doc, splice := range map[string]func(string) (string, error){
		"docs/engines.md":  registry.Splice,
		"docs/security.md": trust.Splice,
		"docs/policies.md": catalogue.SpliceDefault,
	} {
		if err := write(doc, splice); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", doc, err)
			os.Exit(1)
		}
	}
}

func write(doc string, splice func(string) (string, error)) error {
	raw, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	out, err := splice(string(raw))
	if err != nil || out == string(raw) {
		return err
	}
	return os.WriteFile(doc, []byte(out), 0o644)
}
