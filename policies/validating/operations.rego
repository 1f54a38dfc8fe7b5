# Data operations.
#
# A data operation targets a Dataset in its own namespace; on CREATE it
# claims the Dataset against the kinds that conflict with it (policy data
# validating.operations.conflicts), and the webhook records the claim
# atomically or denies naming the holder. runAfter should name an operation
# that exists.
package sluice.validating

import rego.v1

operation_kinds := {"DataLoad", "DataMigrate", "DataBackup", "DataProcess"}

is_operation if input.kind in operation_kinds

deny contains deny_at("operation-target", "spec.dataset", "names no Dataset") if {
	is_operation
	input.request.operation == "CREATE"
	not facts.target.name
}

deny contains deny_at("operation-dataset-namespace", "spec.dataset.namespace", msg) if {
	is_operation
	facts.target.name
	facts.target.namespace != obj.metadata.namespace
	msg := sprintf("the Dataset must be in the operation's namespace %q, not %q", [obj.metadata.namespace, facts.target.namespace])
}

claims contains {
	"dataset": sprintf("%s/%s", [facts.target.namespace, facts.target.name]),
	"kind": input.kind,
	"conflicts": object.get(config.operations.conflicts, input.kind, []),
} if {
	is_operation
	input.request.operation == "CREATE"
	facts.target.name
	facts.target.namespace == obj.metadata.namespace
}

warnings contains msg if {
	is_operation
	ref := obj.spec.runAfter
	facts.runAfter.exists == false
	msg := sprintf("spec.runAfter: %s %q does not exist (yet); this operation waits for it", [ref.kind, ref.name])
}
