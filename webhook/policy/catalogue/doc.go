// Package catalogue lists the rules of a policy bundle: every deny rule
// its modules emit and every mutation rule of the mutating decision, with
// what each judges, the policy data it reads, its modes and its one-line
// description. It reads the compiled modules (OPA's AST), not their text:
// a deny rule's name is the string it emits as its "rule" (deny_at's first
// argument), its description the METADATA annotation above one of its
// definitions, its data keys the refs to data.sluice.config in its body
// and in the rules and functions it calls, so the catalogue follows the
// modules. `sluice policy rules` prints it, and docs/policies.md's rule
// reference is generated from it (make generate).
package catalogue
