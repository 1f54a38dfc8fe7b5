// Package policies embeds Sluice's default Rego policies, their unit tests,
// the default policy data and the fixture cases, so that the webhook and the
// `sluice policy` commands evaluate exactly what is reviewed here.
package policies
