// Package decision defines the decision documents that Sluice's Rego
// policies return and the webhooks apply. Rego decides; Go mutates: a
// decision never contains a raw JSON patch. The schema is documented in
// docs/design/policy-decision.md.
package decision
