package sluice.validating_test

import rego.v1

import data.sluice.validating

# The operation kinds' other rules (their Dataset, their claim) deny these
# bare inputs too; these tests look at the guards only.
guard_rules := {"image-registry", "tieredstore-path", "local-mount", "thin-override", "host-path-volume", "toleration", "process-privilege"}

guarded(d) := {x | some x in d; x.rule in guard_rules}

# 6. Tolerations.
test_a_toleration_of_a_reserved_taint_is_denied_naming_the_field if {
	d := denials("Dataset", {"tolerations": [
		gv("spec.tolerations[0]", "nvidia.com/gpu"),
		gv("spec.tolerations[1]", "node-role.kubernetes.io/control-plane"),
	]})
	count(d) == 1
	some x in d
	x.rule == "toleration"
	startswith(x.message, `spec.tolerations[1]: tolerates taint "node-role.kubernetes.io/control-plane", which is reserved in namespace "team-a"`)
}

test_a_toleration_of_every_taint_is_denied if {
	d := denials("DataLoad", {"tolerations": [gv("spec.tolerations[0]", "")]})
	some x in d
	x.rule == "toleration"
	startswith(x.message, `spec.tolerations[0]: tolerates every taint, including the ones reserved in namespace "team-a"`)
}

test_every_taint_may_be_tolerated_where_none_is_reserved if {
	d := validating.decision.deny with input as guard_input("JindoRuntime", {"tolerations": [gv("spec.fuse.tolerations[0]", "")]})
		with data.sluice.config as team_a("reservedTaints", [])
	count(d) == 0
}

test_an_unchanged_toleration_is_not_judged_again if {
	d := denials("Dataset", {"tolerations": [{"path": "spec.tolerations[0]", "value": "", "unchanged": true}]})
	count(d) == 0
}

test_tolerations_of_other_kinds_are_not_judged if {
	d := denials("ThinRuntimeProfile", {"tolerations": [gv("spec.tolerations[0]", "")]})
	count(d) == 0
}

# 7. DataProcess pod privileges and hostPath volumes.
test_a_privileged_process_pod_is_denied if {
	d := guarded(denials("DataProcess", {"privileges": [
		gv("spec.processor.job.podSpec.hostNetwork", "hostNetwork"),
		gv("spec.processor.job.podSpec.containers[0].securityContext.capabilities.add[0]", "capability SYS_ADMIN"),
	]}))
	rules_of(d) == {"process-privilege"}
	count(d) == 2
	some x in d
	startswith(x.message, `spec.processor.job.podSpec.hostNetwork: hostNetwork is not allowed for DataProcess pods in namespace "team-a" (allowed: none;`)
}

test_process_privileges_can_be_allowed_per_namespace if {
	d := validating.decision.deny with input as guard_input("DataProcess", {"privileges": [
		gv("spec.processor.job.podSpec.hostNetwork", "hostNetwork"),
		gv("spec.processor.job.podSpec.containers[0].securityContext.capabilities.add[0]", "capability SYS_ADMIN"),
	]})
		with data.sluice.config as team_a("processPrivileges", ["hostNetwork", "capability *"])
	count(guarded(d)) == 0
}

# Audit N13: every host-reaching field of the pod spec is a privilege
# (trust/guards/podspec.go), denied by default.
node_reaching := [
	gv("spec.processor.job.podSpec.nodeName", "nodeName"),
	gv("spec.processor.job.podSpec.containers[0].ports[0].hostPort", "hostPort"),
	gv("spec.processor.job.podSpec.initContainers[0].securityContext.seLinuxOptions", "seLinuxOptions"),
	gv("spec.processor.job.podSpec.containers[0].securityContext.procMount", "procMount Unmasked"),
	gv("spec.processor.job.podSpec.securityContext.seccompProfile.type", "seccompProfile Unconfined"),
	gv("spec.processor.job.podSpec.containers[0].securityContext.appArmorProfile.type", "appArmorProfile Unconfined"),
	gv("spec.processor.job.podSpec.containers[0].securityContext.allowPrivilegeEscalation", "allowPrivilegeEscalation"),
	gv("spec.processor.job.podSpec.securityContext.sysctls[0]", "sysctl kernel.msgmax"),
	gv("spec.processor.job.podSpec.runtimeClassName", "runtimeClass runc-debug"),
	gv("spec.processor.job.podSpec.volumes[0].nfs", "volume nfs"),
	gv("spec.processor.job.podSpec.containers[0].livenessProbe.httpGet.host", "probeHost"),
	gv("spec.processor.job.podSpec.ephemeralContainers[0].securityContext.windowsOptions.hostProcess", "hostProcess"),
]

test_every_node_reaching_field_is_denied_naming_it if {
	d := guarded(denials("DataProcess", {"privileges": node_reaching}))
	rules_of(d) == {"process-privilege"}
	count(d) == count(node_reaching)
	every v in node_reaching {
		some x in d
		startswith(x.message, sprintf("%s: %s is not allowed for DataProcess pods in namespace %q (allowed: none; policy data validating.guards.processPrivileges)", [v.path, v.value, "team-a"]))
	}
}

test_node_reaching_fields_can_be_allowed_by_name_or_kind if {
	allowed := [
		"nodeName", "hostPort", "seLinuxOptions", "procMount Unmasked", "seccompProfile Unconfined", "appArmorProfile Unconfined",
		"allowPrivilegeEscalation", "sysctl *", "runtimeClass runc-debug", "volume nfs", "probeHost", "hostProcess",
	]
	d := validating.decision.deny with input as guard_input("DataProcess", {"privileges": node_reaching})
		with data.sluice.config as team_a("processPrivileges", allowed)
	count(guarded(d)) == 0
}

test_a_named_privilege_allows_that_name_only if {
	d := validating.decision.deny with input as guard_input("DataProcess", {"privileges": [
		gv("spec.processor.job.podSpec.volumes[0].nfs", "volume nfs"),
		gv("spec.processor.job.podSpec.volumes[1].iscsi", "volume iscsi"),
		gv("spec.processor.job.podSpec.runtimeClassName", "runtimeClass kata"),
	]})
		with data.sluice.config as team_a("processPrivileges", ["volume nfs", "runtimeClass runc-debug", "capability *"])
	{x.message | some x in guarded(d)} == {
		`spec.processor.job.podSpec.volumes[1].iscsi: volume iscsi is not allowed for DataProcess pods in namespace "team-a" (allowed: capability *, runtimeClass runc-debug, volume nfs; policy data validating.guards.processPrivileges)`,
		`spec.processor.job.podSpec.runtimeClassName: runtimeClass kata is not allowed for DataProcess pods in namespace "team-a" (allowed: capability *, runtimeClass runc-debug, volume nfs; policy data validating.guards.processPrivileges)`,
	}
}

test_a_process_pods_host_path_is_denied if {
	d := guarded(denials("DataProcess", {"hostPathVolumes": [gv("spec.processor.job.podSpec.volumes[0].hostPath", "/var/lib/kubelet")]}))
	rules_of(d) == {"host-path-volume"}
}

# 3. local:// locations of data operations.
test_a_local_backup_path_must_be_allow_listed if {
	d := denials("DataBackup", {"localMounts": [gv("spec.backupPath", "/var/lib/kubelet")]})
	some x in d
	x.rule == "local-mount"
	startswith(x.message, `spec.backupPath: local path "/var/lib/kubelet" is not under an allowed prefix in namespace "team-a"`)
}

test_an_allow_listed_migrate_location_is_admitted if {
	d := validating.decision.deny with input as guard_input("DataMigrate", {"localMounts": [gv("spec.to.externalStorage.uri", "/data/team-a/out")]})
		with data.sluice.config as team_a("localPaths", ["/data/team-a"])
	count(guarded(d)) == 0
}
