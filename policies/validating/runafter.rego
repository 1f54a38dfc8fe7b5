# runAfter: operations that run one after another.
#
# The operation runAfter names (and the affinityStrategy.dependOn it
# follows) must be in the operation's own namespace, and following runAfter
# must never lead back to the operation: such a chain would wait for ever.
# A runAfter naming an operation that does not exist yet is admitted with a
# warning: the operation waits for it.
package sluice.validating

import rego.v1

run_after_refs contains ["spec.runAfter.namespace", ref] if {
	ref := obj.spec.runAfter
}

run_after_refs contains ["spec.runAfter.affinityStrategy.dependOn.namespace", ref] if {
	ref := obj.spec.runAfter.affinityStrategy.dependOn
}

# METADATA
# description: "The operation runAfter names (and the affinityStrategy.dependOn it follows) must be in the operation's namespace."
deny contains deny_at("operation-run-after-namespace", field, msg) if {
	is_operation
	some [field, ref] in run_after_refs
	ref.namespace
	ref.namespace != obj.metadata.namespace
	msg := sprintf("%s %q must be in the operation's namespace %q, not %q", [ref.kind, ref.name, obj.metadata.namespace, ref.namespace])
}

# METADATA
# description: "Following runAfter must never lead back to the operation."
deny contains deny_at("operation-run-after-cycle", "spec.runAfter", msg) if {
	is_operation
	count(object.get(facts, ["runAfter", "cycle"], [])) > 0
	msg := sprintf("the operations would wait for each other for ever: %s", [concat(" → ", facts.runAfter.cycle)])
}

warnings contains msg if {
	is_operation
	ref := obj.spec.runAfter
	facts.runAfter.exists == false
	msg := sprintf("spec.runAfter: %s %q does not exist (yet); this operation waits for it", [ref.kind, ref.name])
}
