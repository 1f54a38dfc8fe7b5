# Reference datasets.
#
# A Dataset whose one mount is dataset://<namespace>/<name>[/<sub-path>]
# serves another Dataset's cache (through a ThinRuntime of its name without
# spec.profileName, which the controller creates when none exists). Its
# mount must have that form and be its only mount; it may not reference
# itself, nor a Dataset that is a reference dataset itself (Fluid refuses
# chains too); its mount is fixed once created; a runtime of any other kind
# cannot serve it.
#
# Who may reference whom: a Dataset of the same namespace always; a Dataset
# of another namespace only when the referenced Dataset opts in, with the
# annotation data.sluice.io/referable-from listing that namespace (or "*"),
# or when policy data validating.references.allow has an entry for the
# pair (namespace "*" and dataset "*" match any).
package sluice.validating

import rego.v1

reference := facts.reference if input.kind == "Dataset"

# METADATA
# description: "A dataset:// mount must read dataset://<namespace>/<name>[/<sub-path>] and be the Dataset's only mount."
deny contains deny_at("reference-form", reference.field, reference.error) if {
	reference.error != ""
}

# METADATA
# description: "A reference dataset may not reference itself."
deny contains deny_at("reference-self", "spec.mounts[0].mountPoint", msg) if {
	reference.error == ""
	reference.namespace == obj.metadata.namespace
	reference.name == obj.metadata.name
	msg := sprintf("dataset://%s/%s is this Dataset itself", [reference.namespace, reference.name])
}

# METADATA
# description: "A reference dataset may not reference a Dataset that is a reference dataset itself."
deny contains deny_at("reference-chain", "spec.mounts[0].mountPoint", msg) if {
	reference.chain != ""
	msg := sprintf("Dataset %s/%s is a reference dataset itself (it mounts %s); reference the Dataset it references instead", [
		reference.namespace, reference.name, reference.chain,
	])
}

reference_allowed if reference.namespace == obj.metadata.namespace

reference_allowed if {
	reference.exists
	some ns in reference.referableFrom
	ns in {"*", obj.metadata.namespace}
}

reference_allowed if {
	some rule in object.get(object.get(config, "references", {}), "allow", [])
	rule.namespace in {"*", obj.metadata.namespace}
	rule.datasetNamespace in {"*", reference.namespace}
	rule.dataset in {"*", reference.name}
}

# METADATA
# description: "A Dataset of another namespace may be referenced only when its annotation data.sluice.io/referable-from, or validating.references.allow, lets the namespace."
deny contains deny_at("reference-not-allowed", "spec.mounts[0].mountPoint", msg) if {
	input.request.operation == "CREATE"
	reference.error == ""
	not reference_allowed
	msg := reference_denial
}

reference_denial := sprintf(
	"Dataset %s/%s does not exist; a Dataset of another namespace can be referenced once it exists and lets namespace %q reference it (annotation %s)",
	[reference.namespace, reference.name, obj.metadata.namespace, "data.sluice.io/referable-from"],
) if not reference.exists

reference_denial := sprintf(
	"Dataset %s/%s does not let namespace %q reference it: its annotation %s must list %q (or \"*\"), or policy data validating.references.allow must allow it",
	[reference.namespace, reference.name, obj.metadata.namespace, "data.sluice.io/referable-from", obj.metadata.namespace],
) if reference.exists

# METADATA
# description: "A reference dataset is served only by a ThinRuntime without spec.profileName."
deny contains deny_at("reference-runtime", "spec.mounts[0].mountPoint", msg) if {
	input.request.operation == "CREATE"
	reference.runtime != ""
	msg := sprintf("a reference dataset is served by a ThinRuntime without spec.profileName, and %s exists with its name", [reference.runtime])
}

# METADATA
# description: "A reference dataset's dataset:// mount is fixed once created, and a Dataset does not become one."
deny contains deny_at("reference-mounts-fixed", "spec.mounts", reference_fixed) if {
	input.request.operation == "UPDATE"
	facts.mountsChanged
	reference
}

deny contains deny_at("reference-mounts-fixed", "spec.mounts", reference_fixed) if {
	input.kind == "Dataset"
	input.request.operation == "UPDATE"
	facts.mountsChanged
	facts.wasReference
}

reference_fixed := "a reference dataset's dataset:// mount is fixed once created, and a Dataset does not become one: delete the Dataset and create it again"

warnings contains sprintf("%s: has no effect on a reference dataset, which serves the cache of %s/%s as that Dataset's runtime makes it", [
	field, reference.namespace, reference.name,
]) if {
	reference.error == ""
	some field in reference.ignored
}

# Runtimes: a reference dataset binds only a ThinRuntime without
# spec.profileName, whose fields have no effect (warned by its field table,
# engines/thin ReferenceFields); a ThinRuntime does not become one, nor
# stops being one.
deny contains deny_at("reference-runtime", "metadata.name", msg) if {
	is_runtime
	input.request.operation == "CREATE"
	mount := object.get(facts, "datasetReference", "")
	mount != ""
	not profile_less_thin(obj)
	msg := sprintf("Dataset %s/%s is a reference dataset (it mounts %s): only a ThinRuntime without spec.profileName serves it", [
		obj.metadata.namespace, obj.metadata.name, mount,
	])
}

profile_less_thin(o) if {
	input.kind == "ThinRuntime"
	object.get(object.get(o, "spec", {}), "profileName", "") == ""
}

profile_name(o) := object.get(object.get(o, "spec", {}), "profileName", "")

# METADATA
# description: "A ThinRuntime may not gain or lose spec.profileName (it serves a reference dataset or runs its profile's FUSE program)."
deny contains deny_at("thin-profile-fixed", "spec.profileName", msg) if {
	input.kind == "ThinRuntime"
	input.request.operation == "UPDATE"
	was_reference_runtime := profile_name(input.oldObject) == ""
	is_reference_runtime := profile_name(obj) == ""
	was_reference_runtime != is_reference_runtime
	msg := "a ThinRuntime without spec.profileName serves a reference dataset, one with it a FUSE program of its profile: it cannot change from one to the other; delete it and create it again"
}

warnings contains sprintf("spec.mounts[0].mountPoint: Dataset %s/%s does not exist yet; the reference dataset binds once it exists and is Bound", [
	reference.namespace, reference.name,
]) if {
	input.request.operation == "CREATE"
	reference.error == ""
	not reference.exists
	reference_allowed
}
