package policy

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/sluice-data/sluice/policies/enforcement"
)

// enforcementOf reads the bundle's enforcement section whole, and checks
// that each rule it names is a mutation rule or is named in one of the
// modules (a deny rule's name is a string in its module: deny_at's first
// argument, or a deny entry's rule), so that a misspelt rule is an error,
// not a mode that never applies.
func enforcementOf(b *Bundle, modules map[string]*ast.Module) (*enforcement.Policy, error) {
	p, err := enforcement.Parse(b.Data[enforcement.Key])
	if err != nil {
		return nil, &CompileError{Errors: []string{"policy data " + err.Error()}}
	}
	if p.Empty() {
		return p, nil
	}
	named := map[string]bool{}
	for _, m := range modules {
		ast.WalkTerms(m, func(t *ast.Term) bool {
			if s, ok := t.Value.(ast.String); ok {
				named[string(s)] = true
			}
			return false
		})
	}
	var errs []string
	for _, r := range p.RuleNames() {
		if !enforcement.IsMutation(r) && !named[r] {
			errs = append(errs, fmt.Sprintf("policy data %s: no policy module names rule %q (mutation rules: %v; sluice policy rules lists every rule)", enforcement.Key, r, enforcement.MutationRules))
		}
	}
	if len(errs) > 0 {
		return nil, &CompileError{Errors: errs}
	}
	return p, nil
}
