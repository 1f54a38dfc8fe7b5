package policycmd

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"sigs.k8s.io/yaml"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/audit"
)

// auditPrinter writes the findings, one namespace at a time.
type auditPrinter struct {
	w      io.Writer
	format string
	now    func() time.Time
	table  *tabwriter.Writer
	// findings are the listed ones kept for JSON, printed at the end.
	findings []audit.Finding
	// listed counts the findings that are not passes, refused those that
	// refuse an object or are errors (not those of rules in warn or
	// dryrun mode, nor the excepted).
	listed, refused int
}

func newAuditPrinter(w io.Writer, format string) *auditPrinter {
	p := &auditPrinter{w: w, format: format, now: time.Now, findings: []audit.Finding{}}
	if format == outputTable {
		p.table = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	}
	return p
}

// namespace prints (or, for JSON, keeps) one namespace's findings.
func (p *auditPrinter) namespace(ns string, findings []audit.Finding) error {
	for _, f := range findings {
		if f.Result == policyreportv1alpha2.ResultPass {
			continue
		}
		p.listed++
		if f.Result == policyreportv1alpha2.ResultFail || f.Result == policyreportv1alpha2.ResultError {
			p.refused++
		}
		switch p.format {
		case outputTable:
			if p.listed == 1 {
				fmt.Fprintln(p.table, "NAMESPACE\tKIND\tNAME\tRESULT\tRULE\tMESSAGE")
			}
			fmt.Fprintf(p.table, "%s\t%s\t%s\t%s\t%s\t%s\n", orDash(f.Object.Namespace), f.Object.Kind, f.Object.Name, resultWord(f), orDash(f.Rule), f.Message)
		case outputJSON:
			p.findings = append(p.findings, f)
		}
	}
	if p.format != outputPolicyReport {
		return nil
	}
	report := audit.Report(ns, findings, p.now())
	if audit.Empty(report) {
		return nil
	}
	data, err := yaml.Marshal(report)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(p.w, "---\n%s", data)
	return err
}

// resultWord is a finding's result in the table: fail or error, or what
// the rule's enforcement made of it when it admits the object: warn,
// dryrun, or excepted by the exception it names.
func resultWord(f audit.Finding) string {
	switch f.Outcome {
	case enforcement.Warned:
		return "warn"
	case enforcement.DryRunned:
		return "dryrun"
	case enforcement.Excepted:
		return "excepted (" + f.Exception + ")"
	}
	return string(f.Result)
}

// done ends the output and returns how many findings refuse an object or
// are errors.
func (p *auditPrinter) done() (int, error) {
	switch p.format {
	case outputTable:
		if p.listed > 0 {
			if err := p.table.Flush(); err != nil {
				return 0, err
			}
		}
		if p.refused == 0 {
			_, err := fmt.Fprintln(p.w, "No stored object is refused by the policies.")
			return 0, err
		}
		return p.refused, nil
	case outputJSON:
		data, err := json.MarshalIndent(p.findings, "", "  ")
		if err != nil {
			return 0, err
		}
		_, err = fmt.Fprintln(p.w, string(data))
		return p.refused, err
	}
	return p.refused, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
