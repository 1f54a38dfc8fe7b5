// Package config is the one definition of Sluice's policy data, the
// document policies read as data.sluice.config: policies/data.yaml, the
// install profiles and every policy ConfigMap's data files. Its types
// exist for their shape, not to be decoded into: Schema reflects them
// into the JSON Schema that hack/policyschema writes to
// policies/data.schema.json (and into the chart's values schema, for
// policies.config), against which the webhook, the controller and
// `sluice policy test` check each data file (policies.ValidateData).
//
// A field's doc comment is its description in the schema: write it for
// the platform team that edits the data.
package config
