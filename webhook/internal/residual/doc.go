// Package residual prepares a query for evaluation from its partial
// evaluation, as OPA's rego.PartialResult does, with one change to the
// residual rules: the expressions that only build the rule's value (a
// message formatted with sprintf, say) are evaluated after the body's
// checks.
//
// Partial evaluation does not keep a body's order. A check that reads a
// variable the body binds by iteration, negated (not served(v.dataset)),
// is saved with the variable's binding at the body's end, and compiling
// the residual orders it after that binding, so after everything else:
// a denial's message was then formatted for every volume the body looked
// at, served or not, before the check that drops the served ones. Moving
// such value-only expressions to the end again gives the evaluation order
// the policy was written in. It changes no result: a body is a
// conjunction of expressions without side effects, and an expression that
// only feeds the rule's head is evaluated when every check has held, so a
// builtin error in it (strict builtin errors) is raised for exactly the
// bodies that would fire, as written.
package residual
