package policy

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
)

// prepare prepares query q, the i-th of its bundle, for evaluation. The
// policy data is fixed for the life of a compiled bundle (a data change
// recompiles it), so the query is first partially evaluated with everything
// but the input known: references to data.sluice.config, and the
// iterations and conditions over it, are folded into residual rules once
// instead of being read and evaluated on every request. The residual rules
// are compiled into compiler under a package of their own per query. Should
// partial evaluation fail, the query is prepared as written; both forms give
// the same results.
func prepare(ctx context.Context, q string, i int, compiler *ast.Compiler, store storage.Store) (rego.PreparedEvalQuery, error) {
	if pr, err := rego.New(
		rego.Query(q),
		rego.PartialNamespace(fmt.Sprintf("sluice_prepared.q%d", i)),
		rego.DisableInlining(completeRules(compiler)),
		rego.Compiler(compiler),
		rego.Store(store),
		rego.StrictBuiltinErrors(true),
	).PartialResult(ctx); err == nil {
		if pq, err := pr.Rego(rego.StrictBuiltinErrors(true)).PrepareForEval(ctx); err == nil {
			return pq, nil
		}
	}
	return rego.New(
		rego.Query(q),
		rego.Compiler(compiler),
		rego.Store(store),
		rego.StoreReadAST(true),
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(ctx)
}

// completeRules lists the complete rules of the compiled modules (single
// value, no arguments, a plain name: pod_annotations["k"] := v adds to an
// object and is not one). Partial evaluation keeps them as rules: evaluated once
// per query and cached, where inlining would repeat them at every use.
func completeRules(compiler *ast.Compiler) []string {
	var refs []string
	seen := map[string]bool{}
	for _, m := range compiler.Modules {
		for _, r := range m.Rules {
			if len(r.Head.Args) > 0 || r.Head.RuleKind() != ast.SingleValue || len(r.Ref()) > 1 {
				continue
			}
			ref := m.Package.Path.Extend(r.Ref())
			k := ref.String()
			if !seen[k] {
				seen[k] = true
				refs = append(refs, k)
			}
		}
	}
	return refs
}
