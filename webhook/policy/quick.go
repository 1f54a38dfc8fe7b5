package policy

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-data/sluice/webhook/internal/quickeval"
	"github.com/sluice-data/sluice/webhook/internal/residual"
	"github.com/sluice-data/sluice/webhook/metrics"
)

// QuickMode says how an engine uses its queries compiled to closures
// (webhook/internal/quickeval), which answer most evaluations without
// OPA's evaluator; OPA evaluates every input they do not answer.
type QuickMode int

const (
	// QuickOn evaluates with the closures first (the default).
	QuickOn QuickMode = iota
	// QuickOff evaluates every input with OPA.
	QuickOff
	// QuickChecked evaluates every input both ways and fails an evaluation
	// whose closures answered otherwise than OPA: the oracle of tests
	// (sluice policy test's cases too). An input the closures do not
	// answer is counted as with QuickOn (a policy may have reasons for
	// it; the tests of the default policies require none where OPA
	// answers).
	QuickChecked
)

// Quick sets how the engine uses its queries compiled to closures, from
// the next bundle it loads. It returns e.
func (e *Engine) Quick(m QuickMode) *Engine {
	e.quick = m
	return e
}

// evalQuick evaluates pq's closures, and OPA's query for an input they do
// not answer (or, checking, for every input).
func (c *Compiled) evalQuick(ctx context.Context, query string, p *prepared, pq residual.Prepared, input ast.Value) (ast.Value, error) {
	v, err := pq.Quick.Eval(ctx, input)
	switch {
	case c.quick == QuickChecked:
		ov, oerr := evalOPA(ctx, query, pq.Query, input)
		switch {
		case err == nil && (oerr != nil || !quickeval.Same(ov, v)):
			return nil, &EvalError{Query: query, Err: fmt.Errorf("the closures answered %v, OPA %v (error %v)", v, ov, oerr)}
		case err != nil && oerr == nil:
			p.byOPA.Inc()
		case err == nil:
			p.answered.Inc()
		}
		return ov, oerr
	case err == nil:
		p.answered.Inc()
		return v, nil
	}
	p.byOPA.Inc()
	return evalOPA(ctx, query, pq.Query, input)
}

// quickCounters are query's counters of the evaluations the closures
// answered and of those left to OPA, resolved once per compiled query
// rather than on every request.
func quickCounters(query string) (answered, byOPA prometheus.Counter) {
	return metrics.QuickEvaluations.WithLabelValues(query, "answered"), metrics.QuickEvaluations.WithLabelValues(query, "opa")
}

// quickCompiled counts query's compilation to closures.
func quickCompiled(query string, pq residual.Prepared) {
	result := "ok"
	if pq.Quick == nil {
		result = "not compiled"
	}
	metrics.QuickPrograms.WithLabelValues(query, result).Inc()
}
