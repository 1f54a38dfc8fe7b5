# Runtime fields an engine cannot honour.
#
# Each engine keeps a table of every field of the runtime kind it serves
# (engines/<engine>/fields.go; ThinRuntimeProfile's in engines/thin): the
# field is honoured, warned (it acts only in part, or not at all) or
# refused. The webhook gives the warned and refused fields the object sets
# as facts.fields, each with its path, support and the engine's message; a
# refused field denies the object, a warned one is a warning. The engine
# refuses the same fields at reconcile (InvalidSpec), so relaxing the rule
# (validating.fields.denyRefused: false) only turns the denial into a
# warning that the runtime will fail.
#
# An UPDATE of labels and annotations only leaves the refused fields the
# old object set unchanged (an object made before an upgrade of Sluice
# refused them): they are warnings, so such an object stays labellable;
# any other write of an object with a refused field is denied.
package sluice.validating

import rego.v1

field_findings := object.get(facts, "fields", [])

deny_refused := object.get(object.get(config, "fields", {}), "denyRefused", true)

# METADATA
# description: "A runtime may not set a field its engine refuses (the engine's field table); with validating.fields.denyRefused false, such a field is a warning."
deny contains deny_at("engine-field", f.path, f.message) if {
	deny_refused
	some f in field_findings
	f.support == "refused"
	not object.get(f, "unchanged", false)
}

warnings contains sprintf("%s: %s", [f.path, f.message]) if {
	some f in field_findings
	f.support == "warned"
}

warnings contains sprintf("%s: %s (the runtime will fail with InvalidSpec)", [f.path, f.message]) if {
	some f in field_findings
	f.support == "refused"
	refused_admitted(f)
}

refused_admitted(_) if not deny_refused

refused_admitted(f) if object.get(f, "unchanged", false)
