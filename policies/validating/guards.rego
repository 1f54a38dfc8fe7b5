# Default guards against tenant escape through specs (audit H2).
#
# A namespace user who may create Datasets and runtimes chooses what the
# engines run on the nodes, privileged: images, tieredstore host paths,
# local:// host directories, hostPath volumes, and a ThinRuntime's
# command. These rules keep each within what the platform allows, per
# namespace: validating.guards[<namespace>].<list> when the namespace has
# that list, else validating.guards["*"].<list> (policies/data.yaml):
#   imagePrefixes     images a runtime sets (repository; tag cut off)
#   tieredstorePaths  hostPath tieredstore levels' paths
#   localPaths        local:// paths: Dataset mounts, DataBackup backupPath,
#                     DataMigrate external storage
#   hostPathVolumes   hostPath volumes in a runtime's spec.volumes and a
#                     DataProcess's pod
#   reservedHostPaths node directories no path list reaches (below)
#   reservedTaints    taint keys no spec may tolerate (guards_pods.rego)
#   processPrivileges host privileges a DataProcess's pod may ask for
#                     (guards_pods.rego)
#   thinOverrides     what a ThinRuntime may override of its profile
#                     (image, command, volumes), besides what the
#                     profile's annotation data.sluice.io/allow-overrides
#                     allows
# Paths are judged clean and absolute, then under a prefix: the prefix
# itself or below it. An image is allowed when it equals a prefix or
# starts with it followed by "/" (a prefix ending in "/" is a registry or
# organisation; "*" admits every image). The webhook gives the values as
# facts.guards, each with its field path; on UPDATE a value the old object had at the same field
# is unchanged and not judged again, so objects stored before a guard
# was tightened stay updatable.
package sluice.validating

import rego.v1

guards_data := object.get(config, "guards", {})

guard_list(name) := l if {
	l := guards_data[obj.metadata.namespace][name]
} else := l if {
	l := guards_data["*"][name]
} else := []

guard_facts := object.get(facts, "guards", {})

judged(kind) := [v | some v in object.get(guard_facts, kind, []); not v.unchanged]

allowed_list(name) := concat(", ", sort(guard_list(name))) if count(guard_list(name)) > 0

allowed_list(name) := "none" if count(guard_list(name)) == 0

# clean_abs_path holds for an absolute path with no empty, "." or ".."
# segment and no trailing "/" (what filepath.Clean leaves unchanged).
clean_abs_path(p) if {
	startswith(p, "/")
	p != "/"
	segments := split(substring(p, 1, -1), "/")
	every s in segments {
		not s in {"", ".", ".."}
	}
}

clean_abs_path("/")

path_under(p, prefix) if p == prefix

path_under(p, prefix) if startswith(p, sprintf("%s/", [trim_suffix(prefix, "/")]))

path_allowed(p, name) if {
	clean_abs_path(p)
	some prefix in guard_list(name)
	path_under(p, prefix)
	not reserved_exposed(p, prefix, name)
}

# Reserved node directories (reservedHostPaths: the node's system and
# Kubernetes directories, Sluice's own): no path list reaches one, or
# anything below one, through a prefix above it; a path list must name
# the directory below a reserved one itself (tieredstorePaths' /dev/shm
# under /dev). local:// paths and hostPath volumes are mounted as they
# are, so a directory above a reserved one (/, /var) would show it and is
# reserved too; a tier's node directory is below its path
# (<path>/.sluice/<namespace>/<name>), so only "below" counts for tiers.
reserved_exposed(p, prefix, name) if {
	some r in guard_list("reservedHostPaths")
	reserved_meets(p, r, name)
	not strictly_under(prefix, r)
}

reserved_meets(p, r, _) if path_under(p, r)

reserved_meets(p, r, name) if {
	name != "tieredstorePaths"
	path_under(r, p)
}

strictly_under(a, r) if {
	path_under(a, r)
	trim_suffix(a, "/") != trim_suffix(r, "/")
}

# reserved_path is the first reserved directory a path under an allowed
# prefix meets, for the message.
reserved_path(p, name) := sort(met)[0] if {
	met := {r |
		some prefix in guard_list(name)
		path_under(p, prefix)
		some r in guard_list("reservedHostPaths")
		reserved_meets(p, r, name)
		not strictly_under(prefix, r)
	}
	count(met) > 0
}

guard_path_message(what, p, name) := sprintf("%s %q must be absolute and clean (no \".\", \"..\", \"//\" or trailing \"/\")", [what, p]) if {
	not clean_abs_path(p)
} else := sprintf("%s %q is, or is above, the node directory %q, which is reserved (policy data validating.guards.reservedHostPaths; validating.guards.%s must name a directory below it)", [
	what, p, reserved_path(p, name), name,
]) if {
	reserved_path(p, name)
} else := sprintf("%s %q is not under an allowed prefix in namespace %q (allowed: %s; policy data validating.guards.%s)", [
	what, p, obj.metadata.namespace, allowed_list(name), name,
])

# 1. Images. "*" in imagePrefixes admits every image.
image_allowed(_) if "*" in guard_list("imagePrefixes")

image_allowed(image) if {
	some prefix in guard_list("imagePrefixes")
	image == trim_suffix(prefix, "/")
}

image_allowed(image) if {
	some prefix in guard_list("imagePrefixes")
	startswith(image, sprintf("%s/", [trim_suffix(prefix, "/")]))
}

# METADATA
# description: "The images a runtime sets must be under its namespace's allowed prefixes (guards imagePrefixes)."
deny contains deny_at("image-registry", v.path, msg) if {
	is_runtime
	some v in judged("images")
	not image_allowed(v.value)
	msg := sprintf("image %q is not from an allowed registry in namespace %q (allowed: %s; policy data validating.guards.imagePrefixes)", [
		v.value, obj.metadata.namespace, allowed_list("imagePrefixes"),
	])
}

# 2. Tieredstore paths: every path must be clean and absolute; a hostPath
# level's must be under an allowed prefix (an emptyDir level's path is a
# mount path inside the pod, not a node directory).
# METADATA
# description: "Tieredstore paths must be clean and absolute, and a hostPath level's under its namespace's allowed prefixes and clear of reserved node directories (guards tieredstorePaths)."
deny contains deny_at("tieredstore-path", v.path, guard_path_message("host path", v.value, "tieredstorePaths")) if {
	is_runtime
	some v in judged("tierPaths")
	v.hostPath
	not path_allowed(v.value, "tieredstorePaths")
}

deny contains deny_at("tieredstore-path", v.path, guard_path_message("path", v.value, "tieredstorePaths")) if {
	is_runtime
	some v in judged("tierPaths")
	not v.hostPath
	not clean_abs_path(v.value)
}

# 3. local:// mounts.
# METADATA
# description: "local:// paths (Dataset mounts, DataBackup backupPath, DataMigrate storage) must be under the namespace's allowed prefixes and clear of reserved node directories (guards localPaths)."
deny contains deny_at("local-mount", v.path, guard_path_message("local path", v.value, "localPaths")) if {
	input.kind in {"Dataset", "DataBackup", "DataMigrate"}
	some v in judged("localMounts")
	not path_allowed(v.value, "localPaths")
}

# 4. ThinRuntime overrides of its profile.
thin_guards := object.get(guard_facts, "thin", null)

thin_override_allowed(kind) if kind in thin_guards.allows

thin_override_allowed(kind) if kind in guard_list("thinOverrides")

# METADATA
# description: "A ThinRuntime may override its profile's image, command or volumes only where the profile's annotation or its namespace's guards (thinOverrides) allow it."
deny contains deny_at("thin-override", v.path, msg) if {
	input.kind == "ThinRuntime"
	thin_guards != null
	some v in thin_guards.overrides
	not v.unchanged
	not thin_override_allowed(v.value)
	msg := sprintf("overrides the %s of ThinRuntimeProfile %s, which does not allow it (annotation %s on the profile, or policy data validating.guards.thinOverrides for namespace %q, must list %q)", [
		v.value, thin_guards.profile, "data.sluice.io/allow-overrides", obj.metadata.namespace, v.value,
	])
}

# 5. hostPath volumes, of a runtime's spec.volumes and a DataProcess's pod.
host_path_kind if is_runtime

host_path_kind if input.kind == "DataProcess"

# METADATA
# description: "The hostPath volumes of a runtime or a DataProcess must be under the namespace's allowed prefixes and clear of reserved node directories (guards hostPathVolumes)."
deny contains deny_at("host-path-volume", v.path, host_path_volume_message(v.value)) if {
	host_path_kind
	some v in judged("hostPathVolumes")
	not path_allowed(v.value, "hostPathVolumes")
}

host_path_volume_message(p) := guard_path_message("hostPath volume", p, "hostPathVolumes") if {
	reserved_path(p, "hostPathVolumes")
} else := sprintf("hostPath volume %q is not allowed in namespace %q (allowed under: %s; policy data validating.guards.hostPathVolumes)", [
	p, obj.metadata.namespace, allowed_list("hostPathVolumes"),
])
