// Package policy compiles Rego policy bundles with the OPA SDK and evaluates
// prepared queries against them. A bundle is compiled once per change and
// swapped in atomically; requests only evaluate.
package policy
