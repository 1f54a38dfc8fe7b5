# Data operations per namespace.
#
# data.sluice.config.custom.deniedOperations maps a namespace to the
# operation kinds that may not be created in it; requiredLabels maps an
# operation kind to the labels each one must carry (on CREATE and UPDATE,
# so a label cannot be removed later). obj, is_operation and
# deny_at come from the default validating modules.
package sluice.validating

import rego.v1

deny contains deny_at("operation-kind-denied", "kind", msg) if {
	is_operation
	input.request.operation == "CREATE"
	input.kind in object.get(data.sluice.config.custom.deniedOperations, obj.metadata.namespace, [])
	msg := sprintf("%s may not be created in namespace %q", [input.kind, obj.metadata.namespace])
}

deny contains deny_at("operation-label-required", sprintf("metadata.labels[%q]", [key]), msg) if {
	is_operation
	some key in object.get(data.sluice.config.custom.requiredLabels, input.kind, [])
	not obj.metadata.labels[key]
	msg := sprintf("every %s carries this label", [input.kind])
}
