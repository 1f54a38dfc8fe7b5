// Package guardcheck judges an object with the default validating
// policies' guard rules (the rules trust/table.go names, less the cache
// budget) and the platform's policy data, as the validating webhook does
// at admission. The controller asks it before an engine renders a runtime
// and its Dataset, so that a spec stored while the webhook was down, or
// set to failurePolicy Ignore, is refused (InvalidSpec) instead of
// deployed unjudged (audit N6).
package guardcheck
