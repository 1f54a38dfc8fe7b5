# Which engines run which operations.
#
# Policy data validating.operations.engines lists, per operation kind, the
# engines (runtime types) that run it ("*" for all); caveats say when an
# engine runs a kind only in some configurations. An operation on a Dataset
# whose engine cannot run it is admitted with a warning: the controller
# fails it at once, naming the engine.
package sluice.validating

import rego.v1

runs_kind(kind, engine) if {
	some e in object.get(config.operations.engines, kind, [])
	e in {"*", engine}
}

warnings contains msg if {
	is_operation
	input.request.operation == "CREATE"
	engine := facts.target.runtimeType
	engine != ""
	not runs_kind(input.kind, engine)
	msg := sprintf("dataset %s/%s: the %s engine cannot run a %s; the operation will fail (engines that can: %s)", [
		facts.target.namespace, facts.target.name, engine, input.kind,
		concat(", ", sort(object.get(config.operations.engines, input.kind, []))),
	])
}

warnings contains msg if {
	is_operation
	input.request.operation == "CREATE"
	caveat := config.operations.caveats[input.kind][facts.target.runtimeType]
	msg := sprintf("dataset %s/%s: %s", [facts.target.namespace, facts.target.name, caveat])
}
