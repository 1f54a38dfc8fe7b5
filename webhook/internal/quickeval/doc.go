// Package quickeval evaluates a compiled residual policy query without
// OPA's evaluator: each rule body is compiled once into Go closures over
// numbered variable slots, calling OPA's own built-in functions.
//
// It is an optional layer of the admission fast path
// (docs/design/admission-fast-path.md), and OPA's evaluator stays its
// oracle and its fallback. A query uses a construct this package does not
// compile (with, every, a unification of two patterns, a call that is
// neither a deterministic built-in nor a function of the bundle, a
// virtual document mixed with base data, …): Compile fails and the caller
// keeps OPA's prepared query. An evaluation meets anything it cannot
// answer as OPA would (a built-in's error, two values for one complete
// rule or object key, an unbound variable where a value was expected):
// Eval returns an error and the caller evaluates the query with OPA,
// which gives the authoritative value or error. So an evaluation here
// only ever answers with a value, and only on paths where OPA's
// evaluation has no error: OPA collects a built-in's error and carries
// on, so where this package stops at an error OPA would fail too, and
// where OPA stops early (rule indices, early exit) this package does
// more of the same work, never less.
//
// Semantics followed: rule bodies in their compiled order, each
// expression's solutions in OPA's iteration order (objects and sets by
// sorted key, arrays by index), negation as failure, complete rules with
// else chains and defaults, partial sets and objects (a document with
// no solution is the empty collection), rules whose heads are refs
// (objects of their children), functions with several definitions, set
// and array and object comprehensions, and base data read from the
// bundle's store once at compile time (a bundle's data is fixed).
package quickeval
