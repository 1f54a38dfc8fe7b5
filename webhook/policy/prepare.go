package policy

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"

	"github.com/sluice-data/sluice/webhook/internal/opalock"
	"github.com/sluice-data/sluice/webhook/internal/residual"
)

// prepare prepares query q, the i-th of its bundle, for evaluation. The
// policy data is fixed for the life of a compiled bundle (a data change
// recompiles it), so the query is first partially evaluated with everything
// but the input known: references to data.sluice.config, and the
// iterations and conditions over it, are folded into residual rules once
// instead of being read and evaluated on every request. The residual rules
// are compiled, with the bundle's modules (compiler's, left as it is),
// under a package of their own per query, their value-only expressions
// evaluated after their checks (webhook/internal/residual). Should partial
// evaluation fail, the query is prepared as written; both forms give the
// same results.
func prepare(ctx context.Context, q string, i int, modules map[string]*ast.Module, compiler *ast.Compiler, store storage.Store) (pq rego.PreparedEvalQuery, err error) {
	err = opalock.Do(func() error {
		pq, err = prepareUnlocked(ctx, q, i, modules, compiler, store)
		return err
	})
	return pq, err
}

func prepareUnlocked(ctx context.Context, q string, i int, modules map[string]*ast.Module, compiler *ast.Compiler, store storage.Store) (rego.PreparedEvalQuery, error) {
	if pq, err := residual.Prepare(ctx, residual.Query{Query: q, Namespace: preparedNamespace(i), Modules: modules,
		Compiler: compiler, Store: store}); err == nil {
		return pq, nil
	}
	return rego.New(
		rego.Query(q),
		rego.Compiler(compiler),
		rego.Store(store),
		rego.StoreReadAST(true),
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(ctx)
}

// preparedNamespace is the package of the residual rules of a bundle's i-th
// query: one name, without dots. OPA takes a dotted partial namespace as
// one key when it partially evaluates a residual again, as the
// specialiser does; the residual's default rules then came out twice and
// every input class whose residual kept one (the sidecar Pods') failed to
// specialise, silently served by the general query.
func preparedNamespace(i int) string { return fmt.Sprintf("sluice_prepared_q%d", i) }
