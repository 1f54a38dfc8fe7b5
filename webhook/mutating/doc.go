// Package mutating is Sluice's mutating admission for Pods: it gathers the
// Pod's dataset volumes from caches, evaluates the mutating Rego policies
// once, and applies the decision with typed mutators (one package each) to
// a copy of the Pod, computing a single JSON patch at the end. If the policy
// denies, errors, or any mutator fails, the Pod is denied: it is never
// admitted half-mutated.
package mutating
