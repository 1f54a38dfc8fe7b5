package monitoring

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"
)

// DashboardPath is the Grafana dashboard, relative to the repository.
const DashboardPath = "charts/sluice/files/grafana/sluice-datasets.json"

// WebhookRow is the title of the dashboard's row of webhook metrics; the
// other rows show the controller's.
const WebhookRow = "Webhook"

// Query is one PromQL query of the dashboard.
type Query struct {
	// Row is the title of the row the panel is in ("" above the first);
	// a template variable's is "templating".
	Row string
	// Panel is the panel's title, or the template variable's name.
	Panel string
	// Expr is the query as written.
	Expr string
}

// panel is the part of a Grafana panel the tests read.
type panel struct {
	Type    string  `json:"type"`
	Title   string  `json:"title"`
	Panels  []panel `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

type dashboard struct {
	Title      string  `json:"title"`
	Panels     []panel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

// DashboardQueries reads the dashboard's panel queries, each with its row,
// and its template variables' queries (row "templating"). It fails on a
// file that is not a Grafana dashboard's JSON.
func DashboardQueries() ([]Query, error) {
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), DashboardPath))
	if err != nil {
		return nil, err
	}
	var d dashboard
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: %w", DashboardPath, err)
	}
	if d.Title == "" || len(d.Panels) == 0 {
		return nil, fmt.Errorf("%s: no title or no panels", DashboardPath)
	}
	var out []Query
	row := ""
	var walk func(ps []panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			if p.Type == "row" {
				row = p.Title
				walk(p.Panels) // a collapsed row holds its panels
				continue
			}
			for _, t := range p.Targets {
				out = append(out, Query{Row: row, Panel: p.Title, Expr: t.Expr})
			}
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			if err := json.Unmarshal(v.Query, &q.Query); err != nil {
				return nil, fmt.Errorf("%s: variable %s: %w", DashboardPath, v.Name, err)
			}
		}
		out = append(out, Query{Row: "templating", Panel: v.Name, Expr: q.Query})
	}
	return out, nil
}

// grafanaInterval matches Grafana's interval variables ($__rate_interval,
// $__interval, ${__range}), which PromQL reads as durations once Grafana
// has replaced them.
var grafanaInterval = regexp.MustCompile(`\$\{?__(rate_interval|interval|range)\}?`)

// labelValues matches a template variable's label_values(selector, label)
// (Grafana's, not PromQL).
var labelValues = regexp.MustCompile(`^\s*label_values\((.*),\s*\w+\s*\)\s*$`)

// MetricNames parses a dashboard or adapter query as Grafana or the adapter
// sends it to Prometheus (interval variables as a duration, label_values'
// selector alone) and returns the metric names it selects, sorted and
// without duplicates; an error when it is not PromQL or names no metric.
func MetricNames(expr string) ([]string, error) {
	q := grafanaInterval.ReplaceAllString(expr, "5m")
	if m := labelValues.FindStringSubmatch(q); m != nil {
		q = m[1]
	}
	e, err := parser.NewParser(parser.Options{}).ParseExpr(q)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", expr, err)
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			name := vs.Name
			for _, m := range vs.LabelMatchers {
				if m.Name == "__name__" {
					name = m.Value
				}
			}
			names = append(names, name)
		}
		return nil
	})
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 || names[0] == "" {
		return nil, fmt.Errorf("%q selects no metric by name", expr)
	}
	return names, nil
}
