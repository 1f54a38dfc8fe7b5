// Package policy compiles Rego policy bundles with the OPA SDK and evaluates
// prepared queries against them. A bundle is compiled once per change and
// swapped in atomically; requests only evaluate. An engine may also
// specialise its queries by input class, an optional layer that lives in
// webhook/internal/specialise and is hooked in by compile.go.
package policy
