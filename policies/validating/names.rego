# Names, binding and mounts.
#
# Dataset and runtime names are DNS-1035 labels (they become Service and
# label names); a Dataset binds one runtime, so a second runtime of another
# kind with the same name is denied; a Dataset's mounts cannot change while
# an operation holds it, nor in ways its bound runtime's engine cannot apply;
# mount-point schemes may be restricted per namespace.
package sluice.validating

import rego.v1

# METADATA
# description: "A new Dataset's or runtime's name must be a DNS-1035 label (it names Services and labels)."
deny contains deny_at("name-dns1035", "metadata.name", msg) if {
	input.kind in ({"Dataset"} | runtime_kinds)
	input.request.operation == "CREATE"
	name := obj.metadata.name
	not regex.match(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`, name)
	msg := sprintf("%q must be a DNS-1035 label: lowercase letters, digits and '-', starting with a letter, at most 63 characters", [name])
}

# METADATA
# description: "A new runtime may not take the name of a runtime of another kind in its namespace (a Dataset binds one runtime)."
deny contains deny_at("runtime-name-conflict", "metadata.name", msg) if {
	is_runtime
	input.request.operation == "CREATE"
	some other in object.get(facts, "sameNameRuntimes", [])
	msg := sprintf("a %s named %q already exists in this namespace; a Dataset binds one runtime", [other, obj.metadata.name])
}

# METADATA
# description: "A Dataset's mounts may not change while a data operation holds it."
deny contains deny_at("dataset-mounts-held", "spec.mounts", msg) if {
	input.kind == "Dataset"
	input.request.operation == "UPDATE"
	facts.mountsChanged
	count(object.get(facts, "holders", [])) > 0
	msg := sprintf("cannot change while %s holds the Dataset", [concat(", ", facts.holders)])
}

# The changes of a bound Dataset's mounts that its engine cannot apply to the
# running cache (engines.MountChecker: JuiceFS's volume identity, Alluxio's
# root under storage), each naming its field. The engine refuses them at
# reconcile too (InvalidSpec), so the denial never hides a change that would
# be applied.
# METADATA
# description: "A bound Dataset's mounts may not change in a way its engine cannot apply to the running cache."
deny contains deny_at("mount-edit", f.path, f.message) if {
	input.kind == "Dataset"
	input.request.operation == "UPDATE"
	some f in object.get(facts, "mountEdits", [])
}

allowed_schemes(ns) := s if {
	s := config.mountSchemes[ns]
} else := s if {
	s := config.mountSchemes["*"]
}

# METADATA
# description: "A Dataset's mount points must use a scheme its namespace allows (validating.mountSchemes)."
deny contains deny_at("mount-scheme", sprintf("spec.mounts[%d].mountPoint", [i]), msg) if {
	input.kind == "Dataset"
	allowed := allowed_schemes(obj.metadata.namespace)
	some i, m in object.get(facts, "mounts", [])
	not m.scheme in allowed
	msg := sprintf("scheme %q is not allowed in namespace %q (allowed: %s)", [m.scheme, obj.metadata.namespace, concat(", ", sort(allowed))])
}
