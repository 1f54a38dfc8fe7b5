# Validating decision.
#
# Assembles the decision for a data operation, runtime or Dataset admission.
# The other modules of package sluice.validating add to its partial rules.
package sluice.validating

import rego.v1

config := data.sluice.config.validating

obj := input.object

facts := object.get(input, "facts", {})

deny_at(rule, path, msg) := {"rule": rule, "message": sprintf("%s: %s", [path, msg])}

decision := {
	"deny": deny,
	"warnings": warnings,
	"claims": claims,
}
