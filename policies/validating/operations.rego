# Data operations.
#
# A data operation targets a Dataset in its own namespace; on CREATE it
# claims the Dataset against the kinds that conflict with it (policy data
# validating.operations.conflicts), and the webhook records the claim
# atomically or denies naming the holder. An operation that does not run at
# once (policy Cron, or after another by runAfter) is not claimed here: the
# controller claims for each run when it starts, and the operation waits
# while another holds the Dataset.
package sluice.validating

import rego.v1

operation_kinds := {"DataLoad", "DataMigrate", "DataBackup", "DataProcess"}

is_operation if input.kind in operation_kinds

# METADATA
# description: "A new data operation must name a Dataset."
deny contains deny_at("operation-target", "spec.dataset", "names no Dataset") if {
	is_operation
	input.request.operation == "CREATE"
	not facts.target.name
}

# METADATA
# description: "A data operation's Dataset must be in the operation's namespace."
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
	not deferred
}

# deferred: the operation does not start when it is admitted.
deferred if obj.spec.policy == "Cron"

deferred if obj.spec.runAfter
