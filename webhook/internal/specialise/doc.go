// Package specialise is an optional layer of the policy engine that makes
// evaluation cheaper for the inputs the webhook sees most: it specialises a
// prepared query's residual by input class. webhook/policy hooks it in
// when a bundle compiles (Engine.Specialising, the webhook's
// --specialise-policies flag); without it the general query serves every
// input, and the general query is the oracle every specialised query is
// tested against (the property tests beside this package, and the fixture
// cases, which run with both).
//
// A residual policy (the query after partial evaluation with the policy
// data known) often compares a fixed input value with constants: the
// default mutating policies test input.pod.metadata.labels["serverless.
// fluid.io/inject"] == "true" in every sidecar rule and its negation in
// every affinity rule. Which of those comparisons hold splits inputs into a
// few classes, and within a class the comparisons are constants: each
// class gets a copy of the residual with them decided, partially evaluated
// again, so that rules that cannot hold for the class are folded away (a
// set no rule can add to becomes a constant empty set). Everything else,
// including every other read of the same input values, is evaluated as
// before.
//
// A comparison is decided only where deciding it cannot change the
// outcome: when every expression before it in its body is one that cannot
// fail with an error (otherwise a rule dropped for the class would hide an
// error the general query raises), and not when it is a negated !=, which
// OPA evaluates with its input reference outside the negation.
//
// A Specialiser builds a class's query on the class's first input, in the
// background, and serves the general query until it is built; it keeps at
// most maxVariants classes per query.
package specialise
