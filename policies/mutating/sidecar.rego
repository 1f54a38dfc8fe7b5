# FUSE sidecar.
#
# Pods labelled serverless.fluid.io/inject=true get the runtime's FUSE
# container as a sidecar for each dataset volume, and the volume is rewritten
# to a hostPath of the FUSE mount. A dataset's sub-path (a reference
# dataset's dataset://ns/name/<sub-path>) is never put into the hostPath,
# which the container runtime would resolve following the FUSE program's
# symbolic links (audit N2): the rewrite names it apart, and the app
# containers' mounts of the volume get it as their subPath, which the
# kubelet resolves refusing links out of the volume. The sidecar is a native
# sidecar where the cluster supports it, gets a mount-readiness gate unless
# fuse.sidecar.poststart.fluid.io/inject=false, drops its privileges for
# Pods labelled unprivileged.sidecar.fluid.io/inject=true, and gets the
# environment variables and resources the platform sets. The FUSE
# template's cache-dir volumes are left out unless the Pod is labelled
# cachedir.sidecar.fluid.io/inject=true, and the annotation
# default.fuse-sidecar.fluid.io/host-mount-path-mode=random-suffix gives
# the sidecar a host mount directory of its Pod's own.
package sluice.mutating

import rego.v1

native_sidecars if data.sluice.config.mutating.sidecar.mode == "native"

native_sidecars if {
	data.sluice.config.mutating.sidecar.mode == "auto"
	input.cluster.nativeSidecars
}

# The rewrite of a dataset volume: a hostPath of the FUSE mount itself, and
# the dataset's sub-path, if it has one, for the app containers' mounts.
volume_rewrite(v) := {"volume": v.volume, "hostPath": v.dataset.volume.fluidPath} if {
	trim(v.dataset.volume.subPath, "/") == ""
}

volume_rewrite(v) := {"volume": v.volume, "hostPath": v.dataset.volume.fluidPath, "subPath": sub} if {
	sub := trim(v.dataset.volume.subPath, "/")
	sub != ""
}

# Two rules rather than an else chain, which partial evaluation keeps as a
# reference evaluated on every Pod CREATE: these two are inlined, each
# guarded by its condition on the input.
sidecar_mode := "native" if native_sidecars

sidecar_mode := "container" if not native_sidecars

default unprivileged := false

unprivileged if input.pod.metadata.labels["unprivileged.sidecar.fluid.io/inject"] == "true"

default readiness_gate := true

readiness_gate := false if input.pod.metadata.labels["fuse.sidecar.poststart.fluid.io/inject"] == "false"

# A regular-container sidecar of a Pod that ends (a Job's: restartPolicy
# Never or OnFailure) stops once the app containers have ended, so that the
# Pod completes: a native sidecar does so by itself.
default exit_with_apps := false

exit_with_apps if {
	not native_sidecars
	input.pod.spec.restartPolicy in {"Never", "OnFailure"}
}

default unique_host_path := false

unique_host_path if input.pod.metadata.annotations["default.fuse-sidecar.fluid.io/host-mount-path-mode"] == "random-suffix"

default keep_cache_dirs := false

keep_cache_dirs if input.pod.metadata.labels["cachedir.sidecar.fluid.io/inject"] == "true"

# A FUSE template volume is a cache directory when its name starts with
# one of mutating.sidecar.cacheDirVolumes.
cache_dir_volume(name) if {
	some prefix in data.sluice.config.mutating.sidecar.cacheDirVolumes
	startswith(name, prefix)
}

# The template volumes a sidecar is injected without: its cache
# directories, unless the Pod keeps them.
dropped_volumes(v) := [name |
	some name in v.dataset.runtime.fuseVolumes
	cache_dir_volume(name)
] if not keep_cache_dirs

dropped_volumes(_) := [] if keep_cache_dirs

# Environment variables and resources set on every injected FUSE
# container, replacing the FUSE template's: from policy data
# mutating.sidecar.env (name: value) and mutating.sidecar.resources
# ({limits, requests}: resource: quantity). Modules add to them:
#   sidecar_env contains {"name": "HTTPS_PROXY", "value": "..."} if ...
#   sidecar_limits["memory"] := "2Gi" if ...
sidecar_env contains {"name": name, "value": value} if {
	some name, value in data.sluice.config.mutating.sidecar.env
}

sidecar_limits[name] := quantity if {
	some name, quantity in data.sluice.config.mutating.sidecar.resources.limits
}

sidecar_requests[name] := quantity if {
	some name, quantity in data.sluice.config.mutating.sidecar.resources.requests
}

# The mode, flags and settings are bound in the body, ahead of the call to
# dataset_ref: a condition on the input that follows a call is not
# specialised (docs/design/admission-fast-path.md).
# METADATA
# description: "FUSE sidecars for serverless Pods, and their dataset volumes rewritten to be served by them."
sidecars contains {
	"volume": v.volume,
	"dataset": dataset_ref(v.dataset),
	"mountPath": v.dataset.volume.fluidPath,
	"mode": mode,
	"unprivileged": unprivileged_flag,
	"readinessGate": gate,
	"env": env,
	"resources": {"limits": limits, "requests": requests},
	"uniqueHostPath": unique,
	"dropVolumes": dropped_volumes(v),
	"exitWithApps": exit,
} if {
	serverless
	mode := sidecar_mode
	unprivileged_flag := unprivileged
	gate := readiness_gate
	unique := unique_host_path
	exit := exit_with_apps
	env := sidecar_env
	limits := sidecar_limits
	requests := sidecar_requests
	some v in input.datasetVolumes
}

volume_rewrites contains volume_rewrite(v) if {
	serverless
	some v in input.datasetVolumes
}

# METADATA
# description: "A serverless Pod may not use a dataset whose runtime has no FUSE template to inject as a sidecar."
deny contains {"rule": "sidecar-without-fuse", "message": msg} if {
	serverless
	some v in input.datasetVolumes
	not v.dataset.runtime.fuse
	msg := sprintf("volume %q uses dataset %s, whose runtime has no FUSE template to inject as a sidecar", [v.volume, dataset_ref(v.dataset)])
}

# The key is bound in the body for speed, as for pod_annotations
# (volumes.rego).
pod_labels[key] := "true" if {
	serverless
	uses_datasets
	key := "done.sidecar.fluid.io/inject"
}

warnings contains msg if {
	serverless
	keep_cache_dirs
	some v in input.datasetVolumes
	not has_cache_dir_volume(v)
	msg := sprintf("cachedir.sidecar.fluid.io/inject: the FUSE template of dataset %s has no cache-dir volume; the sidecar is the same with or without it", [dataset_ref(v.dataset)])
}

warnings contains msg if {
	serverless
	some v in input.datasetVolumes
	secrets := v.dataset.reference.fuseSecrets
	count(secrets) > 0
	msg := sprintf("volume %q uses reference dataset %s: its FUSE sidecar (of Dataset %s/%s) reads Secret(s) %s, which Sluice does not copy from namespace %q; they must exist in namespace %q", [
		v.volume, dataset_ref(v.dataset), v.dataset.reference.namespace, v.dataset.reference.name,
		concat(", ", secrets), v.dataset.reference.namespace, input.request.namespace,
	])
}

# The kubelet resolves a container's subPath when it starts the container,
# creating the directory if it is missing: an app container started before
# the sidecar's FUSE mount is up gets an empty directory of the node, and
# keeps it until it restarts. The readiness gate is what holds it.
warnings contains msg if {
	serverless
	not readiness_gate
	not app_poststart_asked
	some v in input.datasetVolumes
	sub := trim(v.dataset.volume.subPath, "/")
	sub != ""
	msg := sprintf("fuse.sidecar.poststart.fluid.io/inject=false: volume %q of dataset %s is mounted at its sub-path %q (the containers' subPath), which the kubelet resolves when a container starts; an app container that starts before the FUSE mount is up sees an empty directory until it restarts. Keep the readiness gate, or label the Pod app.poststart.fluid.io/inject=true", [v.volume, dataset_ref(v.dataset), sub])
}

has_cache_dir_volume(v) if {
	some name in v.dataset.runtime.fuseVolumes
	cache_dir_volume(name)
}

warnings contains msg if {
	mode := input.pod.metadata.annotations["default.fuse-sidecar.fluid.io/host-mount-path-mode"]
	mode != "random-suffix"
	msg := sprintf("default.fuse-sidecar.fluid.io/host-mount-path-mode: unknown mode %q (the one mode is random-suffix); the sidecars share their runtime's host mount directory", [mode])
}

warnings contains msg if {
	input.pod.metadata.annotations["default.fuse-sidecar.fluid.io/host-mount-path-mode"] == "random-suffix"
	uses_datasets
	not serverless
	msg := "default.fuse-sidecar.fluid.io/host-mount-path-mode: the Pod gets no FUSE sidecar (it is not labelled serverless.fluid.io/inject=true), so the annotation changes nothing"
}

warnings contains msg if {
	input.pod.metadata.labels["cachedir.sidecar.fluid.io/inject"] == "true"
	uses_datasets
	not serverless
	msg := "cachedir.sidecar.fluid.io/inject: the Pod gets no FUSE sidecar (it is not labelled serverless.fluid.io/inject=true), so the label changes nothing"
}
