# Default guards on where and how the pods Sluice creates for a spec run
# (audit H2): tolerations that would put engine or operation pods on
# reserved nodes (the control plane), and the host privileges of a
# DataProcess's own pod spec. The lists are validating.guards[<namespace>]
# or validating.guards["*"] (guards.rego):
#   reservedTaints     taint keys no spec may tolerate; a toleration of
#                      every taint (operator Exists, no key) tolerates them
#   processPrivileges  what a DataProcess's pod may ask for of the node
#                      (trust/guards/podspec.go judges every
#                      PodSpec field that reaches it): nodeName, hostNetwork,
#                      hostPID, hostIPC, hostPort, probeHost, privileged,
#                      allowPrivilegeEscalation, seLinuxOptions, hostProcess,
#                      "procMount Unmasked", "seccompProfile Unconfined",
#                      "appArmorProfile Unconfined", and by name
#                      "capability <NAME>", "sysctl <NAME>",
#                      "runtimeClass <NAME>", "volume <type>" (a volume type
#                      other than configMap, secret, downwardAPI, projected,
#                      emptyDir, persistentVolumeClaim, ephemeral and
#                      hostPath, e.g. "volume nfs"); "<kind> *" allows every
#                      name of a kind
# Node affinity is not judged: taints are what fence nodes off, and a pod
# that does not tolerate a node's taints is not placed there whatever its
# affinity.
package sluice.validating

import rego.v1

toleration_kinds := {"Dataset", "JindoRuntime", "DataLoad", "DataMigrate", "DataProcess"}

# METADATA
# description: "Engine and operation pods may not tolerate a taint the namespace's guards reserve (reservedTaints), nor every taint while some are reserved."
deny contains deny_at("toleration", v.path, msg) if {
	input.kind in toleration_kinds
	some v in judged("tolerations")
	v.value in guard_list("reservedTaints")
	msg := sprintf("tolerates taint %q, which is reserved in namespace %q (reserved: %s; policy data validating.guards.reservedTaints)", [
		v.value, obj.metadata.namespace, allowed_list("reservedTaints"),
	])
}

deny contains deny_at("toleration", v.path, msg) if {
	input.kind in toleration_kinds
	some v in judged("tolerations")
	v.value == ""
	count(guard_list("reservedTaints")) > 0
	msg := sprintf("tolerates every taint, including the ones reserved in namespace %q (%s; policy data validating.guards.reservedTaints): name the taint keys to tolerate", [
		obj.metadata.namespace, allowed_list("reservedTaints"),
	])
}

privilege_allowed(p) if p in guard_list("processPrivileges")

named_privileges := {"capability", "sysctl", "runtimeClass", "volume"}

privilege_allowed(p) if {
	some kind in named_privileges
	startswith(p, sprintf("%s ", [kind]))
	sprintf("%s *", [kind]) in guard_list("processPrivileges")
}

# METADATA
# description: "A DataProcess's pod may ask only for the host privileges its namespace's guards allow (processPrivileges)."
deny contains deny_at("process-privilege", v.path, msg) if {
	input.kind == "DataProcess"
	some v in judged("privileges")
	not privilege_allowed(v.value)
	msg := sprintf("%s is not allowed for DataProcess pods in namespace %q (allowed: %s; policy data validating.guards.processPrivileges)", [
		v.value, obj.metadata.namespace, allowed_list("processPrivileges"),
	])
}
