// Command policyschema writes the JSON Schema of the policy data, which it
// reflects from the one Go definition (policies/config), to
//   - policies/data.schema.json, which the webhook, the controller and
//     `sluice policy test` check every policy data file against
//     (policies.ValidateData), and docs/policies.md points editors at;
//   - charts/sluice/values.schema.json, as the schema of the value
//     policies.config, so that Helm refuses policy data that the webhook
//     would reject before it installs anything. Only that value's schema
//     is rewritten; the rest of the file is left byte for byte.
//
// `make generate` runs it; `make verify` fails when its output differs from
// the committed files.
package main
