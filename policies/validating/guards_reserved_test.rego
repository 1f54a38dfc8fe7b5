package sluice.validating_test

import rego.v1

import data.sluice.validating

# Reserved node directories (validating.guards.reservedHostPaths) hold
# whatever the path lists allow: the fluid-compatible profile lists "/".

every_path(list) := object.union(data.sluice.config, {"validating": {"guards": {"*": {
	"localPaths": list, "tieredstorePaths": list, "hostPathVolumes": list,
}}}})

local_denials(p, config) := d if {
	d := validating.decision.deny with input as guard_input("Dataset", {"localMounts": [gv("spec.mounts[0].mountPoint", p)]})
		with data.sluice.config as config
}

test_a_reserved_directory_or_below_is_refused_under_slash if {
	some p in ["/etc", "/etc/kubernetes/pki", "/var/lib/kubelet/pods", "/runtime-mnt/juicefs/team-b/data", "/var/lib/sluice/csi"]
	some x in local_denials(p, every_path(["/"]))
	x.rule == "local-mount"
	contains(x.message, "which is reserved (policy data validating.guards.reservedHostPaths")
}

test_every_reserved_directory_is_refused_under_slash if {
	every r in data.sluice.config.validating.guards["*"].reservedHostPaths {
		rules_of(local_denials(r, every_path(["/"]))) == {"local-mount"}
	}
}

test_a_directory_above_a_reserved_one_is_refused_for_mounts if {
	some p in ["/", "/var", "/var/lib"]
	d := local_denials(p, every_path(["/"]))
	some x in d
	contains(x.message, "is, or is above, the node directory")
}

test_a_data_directory_is_admitted_under_slash if {
	every p in ["/mnt/nfs-imagenet", "/data/subpath1", "/var/lib/docker/alluxio", "/home/data", "/var/lib/sluice-data"] {
		count(local_denials(p, every_path(["/"]))) == 0
	}
}

test_a_listed_directory_below_a_reserved_one_is_admitted if {
	count(local_denials("/dev/shm/x", every_path(["/", "/dev/shm"]))) == 0
	rules_of(local_denials("/dev/sda", every_path(["/", "/dev/shm"]))) == {"local-mount"}
}

test_a_tier_above_a_reserved_directory_is_admitted if {
	# A tier's node directory is <path>/.sluice/<namespace>/<name>.
	g := {"tierPaths": [tier("spec.tieredstore.levels[0].path", "/var/lib")]}
	count(validating.decision.deny) == 0 with input as guard_input("AlluxioRuntime", g) with data.sluice.config as every_path(["/"])
	g2 := {"tierPaths": [tier("spec.tieredstore.levels[0].path", "/proc/sys")]}
	rules_of(validating.decision.deny) == {"tieredstore-path"} with input as guard_input("AlluxioRuntime", g2) with data.sluice.config as every_path(["/"])
}

test_a_host_path_volume_above_a_reserved_directory_is_refused if {
	g := {"hostPathVolumes": [gv("spec.volumes[0].hostPath.path", "/var")]}
	d := validating.decision.deny with input as guard_input("JuiceFSRuntime", g) with data.sluice.config as every_path(["/"])
	some x in d
	x.rule == "host-path-volume"
	contains(x.message, `hostPath volume "/var" is, or is above, the node directory`)
}

test_the_restricted_lists_meet_no_reserved_directory if {
	# The default tieredstorePaths stay admitted: /var/lib/sluice is above
	# /var/lib/sluice/csi, but a tier's node directory is below its path.
	every p in data.sluice.config.validating.guards["*"].tieredstorePaths {
		g := {"tierPaths": [tier("spec.tieredstore.levels[0].path", p)]}
		count(validating.decision.deny) == 0 with input as guard_input("AlluxioRuntime", g)
	}
}
