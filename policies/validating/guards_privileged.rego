# Tenant values in containers with host privileges (issue 30, audit N1).
#
# The engines run privileged FUSE containers (and privileged JuiceFS
# workers), and some components on the host network. A namespace user's
# value that reaches such a container could change what runs there as
# root on the node: an environment variable the loader, shell or JVM
# reads (PATH, LD_PRELOAD, JAVA_TOOL_OPTIONS), a volume mounted over the
# program, a lifecycle hook or an exec probe, a JVM flag
# (-XX:OnOutOfMemoryError). trust/table.go classifies every field of
# every kind; the webhook gives the set values of the fields it guards
# with this rule as facts.guards.privileged, each with its field, the
# container it reaches and, for lists judged element by element, the
# element and the policy data list of allowed patterns:
#   envNames   names of environment variables (anchored RE2 patterns)
#   jvmOptions JVM flags
#   fuseArgs   arguments of a FUSE program (mount options)
# Any other such field is denied unless validating.guards.privilegedFields
# lists its field path ("*" for every field) for the namespace. The
# controller refuses the same values before it renders (InvalidSpec).
package sluice.validating

import rego.v1

privileged_field_allowed(field) if "*" in guard_list("privilegedFields")

privileged_field_allowed(field) if field in guard_list("privilegedFields")

privileged_element_allowed(v) if {
	some pattern in guard_list(v.list)
	regex.match(sprintf("^(?:%s)$", [pattern]), v.value)
}

# METADATA
# description: "Tenant values that reach containers with host privileges (environment, volumes, hooks, probes, JVM flags, FUSE arguments) must be allowed by the namespace's guards."
deny contains deny_at("privileged-container", v.path, msg) if {
	is_runtime
	some v in judged("privileged")
	object.get(v, "list", "") == ""
	not privileged_field_allowed(v.field)
	msg := sprintf("reaches %s, which runs with host privileges: a namespace user's value there could change what runs as root on the node, so tenant values reach unprivileged containers only (policy data validating.guards.privilegedFields for namespace %q may list %q)", [
		v.container, obj.metadata.namespace, v.field,
	])
}

deny contains deny_at("privileged-container", v.path, msg) if {
	is_runtime
	some v in judged("privileged")
	object.get(v, "list", "") != ""
	not privileged_field_allowed(v.field)
	not privileged_element_allowed(v)
	msg := sprintf("%q is not allowed in %s, which runs with host privileges (allowed patterns in namespace %q: %s; policy data validating.guards.%s)", [
		v.value, v.container, obj.metadata.namespace, allowed_list(v.list), v.list,
	])
}
