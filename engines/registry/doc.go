// Package registry is the one place that names Sluice's engines: Default,
// the engines the controller runs (main.go builds them and passes them in
// controller.Options.Engines), their field tables (All), which the
// validating webhook checks at admission and docs/engines.md shows, and
// what the webhook's guards read of an engine's options (OptionCaches).
// No other package outside engines/ and tests imports an engine package
// (.golangci.yml, rule engines-are-registered-once).
package registry
