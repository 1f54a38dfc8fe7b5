package sluice.validating_test

import rego.v1

import data.sluice.validating

# guard_input is an admission of kind in team-a with the given guard facts.
guard_input(kind, guards) := {
	"request": req("CREATE"), "kind": kind,
	"object": {"metadata": {"name": "demo", "namespace": "team-a"}, "spec": {}},
	"oldObject": null,
	"facts": {"levels": [], "replicas": 1, "bound": false, "mountsChanged": false, "guards": guards},
}

gv(path, value) := {"path": path, "value": value, "unchanged": false}

tier(path, value) := {"path": path, "value": value, "hostPath": true, "unchanged": false}

# team_a overrides the named list for team-a only.
team_a(name, list) := object.union(data.sluice.config, {"validating": {"guards": {"team-a": {name: list}}}})

# star sets the named list for every namespace.
star(name, list) := object.union(data.sluice.config, {"validating": {"guards": {"*": {name: list}}}})

denials(kind, guards) := d if {
	d := validating.decision.deny with input as guard_input(kind, guards)
}

# 1. Images.
test_engine_default_images_are_admitted if {
	d := denials("JuiceFSRuntime", {"images": [
		gv("spec.juicefsVersion.image", "juicedata/juicefs-fuse"),
		gv("spec.fuse.image", "docker.io/alluxio/alluxio"),
		gv("spec.jindoVersion.image", "registry.cn-shanghai.aliyuncs.com/jindofs/smartdata"),
	]})
	count(d) == 0
}

test_unlisted_image_is_denied_naming_the_field if {
	d := denials("JuiceFSRuntime", {"images": [gv("spec.juicefsVersion.image", "busybox")]})
	some x in d
	x.rule == "image-registry"
	startswith(x.message, `spec.juicefsVersion.image: image "busybox" is not from an allowed registry in namespace "team-a"`)
}

test_image_prefix_is_a_path_prefix if {
	d := denials("AlluxioRuntime", {"images": [gv("spec.fuse.image", "alluxio-evil/alluxio")]})
	rules_of(d) == {"image-registry"}
}

test_namespace_image_list_overrides_the_default if {
	g := {"images": [gv("spec.fuse.image", "registry.example.com/fuse")]}
	count(validating.decision.deny) == 0 with input as guard_input("ThinRuntime", g) with data.sluice.config as team_a("imagePrefixes", ["registry.example.com"])
	rules_of(validating.decision.deny) == {"image-registry"} with input as guard_input("ThinRuntime", {"images": [gv("spec.fuse.image", "juicedata/juicefs-fuse")]})
		with data.sluice.config as team_a("imagePrefixes", ["registry.example.com"])
}

test_star_image_list_applies_to_every_namespace if {
	g := {"images": [gv("spec.fuse.image", "busybox")]}
	count(validating.decision.deny) == 0 with input as guard_input("JindoRuntime", g) with data.sluice.config as star("imagePrefixes", ["busybox"])
}

test_star_entry_admits_every_image if {
	g := {"images": [gv("spec.fuse.image", "anything.example.com/x")]}
	count(validating.decision.deny) == 0 with input as guard_input("JindoRuntime", g) with data.sluice.config as team_a("imagePrefixes", ["*"])
}

test_unchanged_image_is_not_judged if {
	count(denials("JuiceFSRuntime", {"images": [object.union(gv("spec.fuse.image", "busybox"), {"unchanged": true})]})) == 0
}

rules_of(d) := {x.rule | some x in d}

# 2. Tieredstore paths.
test_default_tier_paths_are_admitted if {
	count(denials("AlluxioRuntime", {"tierPaths": [
		tier("spec.tieredstore.levels[0].path", "/dev/shm"),
		tier("spec.tieredstore.levels[1].path", "/mnt/disk1"),
		tier("spec.tieredstore.levels[1].path", "/var/jfsCache"),
		tier("spec.tieredstore.levels[2].path", "/var/lib/sluice/cache"),
	]})) == 0
}

test_node_directories_are_denied if {
	every p in ["/", "/etc", "/var/lib/kubelet", "/root", "/proc", "/sys", "/run", "/var/run", "/mntx", "/var/lib/sluicex"] {
		d := denials("JuiceFSRuntime", {"tierPaths": [tier("spec.tieredstore.levels[0].path", p)]})
		some x in d
		x.rule == "tieredstore-path"
		x.message == sprintf(`spec.tieredstore.levels[0].path: host path %q is not under an allowed prefix in namespace "team-a" (allowed: /dev/shm, /mnt, /var/jfsCache, /var/lib/sluice; policy data validating.guards.tieredstorePaths)`, [p])
	}
}

test_dot_dot_tricks_are_denied if {
	every p in ["/mnt/../etc", "/dev/shm/./x", "/mnt//etc", "/mnt/", "mnt/disk", "/dev/shm/.."] {
		d := denials("JuiceFSRuntime", {"tierPaths": [tier("spec.tieredstore.levels[0].path", p)]})
		some x in d
		x.rule == "tieredstore-path"
		contains(x.message, "must be absolute and clean")
	}
}

test_empty_dir_level_path_need_only_be_clean if {
	ok := object.union(tier("spec.tieredstore.levels[0].path", "/var/cache/rclone"), {"hostPath": false})
	count(denials("ThinRuntime", {"tierPaths": [ok]})) == 0
	bad := object.union(tier("spec.tieredstore.levels[0].path", "/var/../etc"), {"hostPath": false})
	rules_of(denials("ThinRuntime", {"tierPaths": [bad]})) == {"tieredstore-path"}
}

test_namespace_tier_paths_override_the_default if {
	g := {"tierPaths": [tier("spec.tieredstore.levels[0].path", "/data/cache")]}
	count(validating.decision.deny) == 0 with input as guard_input("JuiceFSRuntime", g) with data.sluice.config as team_a("tieredstorePaths", ["/data"])
	d := validating.decision.deny with input as guard_input("JuiceFSRuntime", {"tierPaths": [tier("spec.tieredstore.levels[0].path", "/dev/shm")]})
		with data.sluice.config as team_a("tieredstorePaths", ["/data"])
	rules_of(d) == {"tieredstore-path"}
}

# 3. local:// mounts.
test_local_mount_is_denied_by_default if {
	d := denials("Dataset", {"localMounts": [gv("spec.mounts[1].mountPoint", "/etc")]})
	some x in d
	x.rule == "local-mount"
	x.message == `spec.mounts[1].mountPoint: local path "/etc" is not under an allowed prefix in namespace "team-a" (allowed: none; policy data validating.guards.localPaths)`
}

test_local_mount_under_an_allowed_prefix if {
	g := {"localMounts": [gv("spec.mounts[0].mountPoint", "/data/team-a/imagenet")]}
	count(validating.decision.deny) == 0 with input as guard_input("Dataset", g) with data.sluice.config as team_a("localPaths", ["/data/team-a"])
	count(validating.decision.deny) == 0 with input as guard_input("Dataset", g) with data.sluice.config as star("localPaths", ["/data"])
	d := validating.decision.deny with input as guard_input("Dataset", {"localMounts": [gv("spec.mounts[0].mountPoint", "/data/team-a/../../etc")]})
		with data.sluice.config as team_a("localPaths", ["/data/team-a"])
	rules_of(d) == {"local-mount"}
}

# 4. ThinRuntime overrides.
thin(allows, overrides) := {"profile": "nfs", "exists": true, "allows": allows, "overrides": overrides}

test_thin_override_is_denied if {
	d := denials("ThinRuntime", {"thin": thin([], [gv("spec.fuse.image", "image"), gv("spec.volumes[0]", "volumes")])})
	rules_of(d) == {"thin-override"}
	count(d) == 2
	some x in d
	startswith(x.message, "spec.volumes[0]: overrides the volumes of ThinRuntimeProfile nfs, which does not allow it")
}

test_thin_override_allowed_by_the_profile if {
	d := denials("ThinRuntime", {"thin": thin(["image", "command"], [gv("spec.fuse.image", "image"), gv("spec.fuse.args", "command"), gv("spec.volumes[0]", "volumes")])})
	[x.message | some x in d] == ["spec.volumes[0]: overrides the volumes of ThinRuntimeProfile nfs, which does not allow it (annotation data.sluice.io/allow-overrides on the profile, or policy data validating.guards.thinOverrides for namespace \"team-a\", must list \"volumes\")"]
}

test_thin_override_allowed_by_namespace_data if {
	g := {"thin": thin([], [gv("spec.fuse.command", "command")])}
	count(validating.decision.deny) == 0 with input as guard_input("ThinRuntime", g) with data.sluice.config as team_a("thinOverrides", ["command"])
	count(validating.decision.deny) == 0 with input as guard_input("ThinRuntime", g) with data.sluice.config as star("thinOverrides", ["command"])
}

test_thin_without_overrides_is_admitted if {
	count(denials("ThinRuntime", {"thin": thin([], [])})) == 0
}

# 5. hostPath volumes.
test_host_path_volume_is_denied_by_default if {
	d := denials("JindoRuntime", {"hostPathVolumes": [gv("spec.volumes[2].hostPath", "/var/run/docker.sock")]})
	some x in d
	x.rule == "host-path-volume"
	startswith(x.message, `spec.volumes[2].hostPath: hostPath volume "/var/run/docker.sock" is not allowed in namespace "team-a"`)
}

test_host_path_volume_allowed_per_namespace if {
	g := {"hostPathVolumes": [gv("spec.volumes[0].hostPath", "/opt/models")]}
	count(validating.decision.deny) == 0 with input as guard_input("AlluxioRuntime", g) with data.sluice.config as team_a("hostPathVolumes", ["/opt"])
	d := validating.decision.deny with input as guard_input("AlluxioRuntime", g) with data.sluice.config as team_a("hostPathVolumes", ["/opt/other"])
	rules_of(d) == {"host-path-volume"}
}

test_another_namespace_keeps_the_star_default if {
	g := {"hostPathVolumes": [gv("spec.volumes[0].hostPath", "/opt/models")]}
	other := object.union(guard_input("AlluxioRuntime", g), {"object": {"metadata": {"namespace": "team-b"}}})
	d := validating.decision.deny with input as other with data.sluice.config as team_a("hostPathVolumes", ["/opt"])
	rules_of(d) == {"host-path-volume"}
}
