package policy

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/sluice-data/sluice/webhook/internal/opalock"
	"github.com/sluice-data/sluice/webhook/internal/residual"
)

// prepare prepares query q.Query, the i-th of its bundle, for evaluation.
// The policy data is fixed for the life of a compiled bundle (a data
// change recompiles it), so the query is prepared from its partial
// evaluation with everything but the input known (q.Residual, when the
// caller has it; webhook/internal/residual): references to
// data.sluice.config, and the iterations and conditions over it, are
// folded into residual rules once instead of being read and evaluated on
// every request. The residual rules are compiled, with the bundle's
// modules (q.Compiler's, left as it is), under a package of their own per
// query, their value-only expressions evaluated after their checks. Should
// partial evaluation fail, the query is prepared as written; both forms
// give the same results.
func prepare(ctx context.Context, q residual.Query) (pq residual.Prepared, err error) {
	err = opalock.Do(func() error {
		pq, err = prepareUnlocked(ctx, q)
		return err
	})
	return pq, err
}

func prepareUnlocked(ctx context.Context, q residual.Query) (residual.Prepared, error) {
	if pq, err := residual.Prepare(ctx, q); err == nil {
		return pq, nil
	}
	pq, err := rego.New(
		rego.Query(q.Query),
		rego.Compiler(q.Compiler),
		rego.Store(q.Store),
		rego.StoreReadAST(true),
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(ctx)
	return residual.Prepared{Query: pq, Why: fmt.Errorf("the query is prepared as written")}, err
}

// preparedNamespace is the package of the residual rules of a bundle's i-th
// query: one name, without dots. OPA takes a dotted partial namespace as
// one key when it partially evaluates a residual again, as the
// specialiser does; the residual's default rules then came out twice and
// every input class whose residual kept one (the sidecar Pods') failed to
// specialise, silently served by the general query.
func preparedNamespace(i int) string { return fmt.Sprintf("sluice_prepared_q%d", i) }
