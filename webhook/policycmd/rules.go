package policycmd

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/policy/catalogue"
)

// Output formats of `policy rules` (and formatJSON).
const (
	formatTable    = "table"
	formatMarkdown = "markdown"
)

func newRulesCommand() *cobra.Command {
	var (
		dirs    []string
		profile string
		format  string
	)
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules of the policies: what each judges, its modes, the data it reads",
		Long: `Prints the catalogue of the rules of the default policies, with the install
profile's data and each --policies directory over them as ` + "`policy eval`" + ` loads
them: every deny rule (by the name it emits, deny_at's first argument or
the "rule" key) and every mutation rule, with the webhook and the kinds of
object it judges, its modes (the default first) and the mode, namespace
modes and exceptions the policy data's enforcement section sets, the
policy data keys it reads, its description (the METADATA annotation above
one of its definitions) and its module.

--format table (the default) prints one line per rule; json every field;
markdown the tables of docs/policies.md's rule reference, which is this
command's output for the default policies.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch format {
			case formatTable, formatJSON, formatMarkdown:
			default:
				return fmt.Errorf("--format must be table, json or markdown, not %q", format)
			}
			b, err := loadBundle(profile, dirs)
			if err != nil {
				return err
			}
			rules, err := catalogue.Build(b)
			if err != nil {
				return err
			}
			return printRules(cmd.OutOrStdout(), format, rules)
		},
	}
	cmd.Flags().StringArrayVar(&dirs, "policies", nil, "a directory of extra Rego modules and policy data laid over the defaults (repeatable)")
	cmd.Flags().StringVar(&profile, "profile", policies.ProfileRestricted, "the install profile whose policy data is merged over the defaults, as the chart's policies.profile ("+strings.Join(policies.Profiles(), ", ")+")")
	cmd.Flags().StringVar(&format, "format", formatTable, "output: table, json or markdown")
	return cmd
}

func printRules(out io.Writer, format string, rules []catalogue.Rule) error {
	switch format {
	case formatJSON:
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rules)
	case formatMarkdown:
		_, err := io.WriteString(out, catalogue.Markdown(rules))
		return err
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "RULE\tKIND\tJUDGES\tMODE\tDATA KEYS\tDESCRIPTION")
	for _, r := range rules {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Kind, catalogue.Judges(r), currentMode(r), orDash(strings.Join(r.DataKeys, ",")), catalogue.Describe(r))
	}
	return w.Flush()
}

// currentMode is a rule's mode as the policy data sets it: its mode (and
// its default, when another), the namespaces that override it, and the
// exceptions that name it.
func currentMode(r catalogue.Rule) string {
	out := string(r.Mode)
	if r.Mode != r.DefaultMode {
		out += " (default " + string(r.DefaultMode) + ")"
	}
	for _, ns := range slices.Sorted(maps.Keys(r.NamespaceModes)) {
		out += fmt.Sprintf("; in %s: %s", ns, r.NamespaceModes[ns])
	}
	if len(r.Exceptions) > 0 {
		out += "; exceptions: " + strings.Join(r.Exceptions, ", ")
	}
	return out
}
