# FUSE sidecar.
#
# Pods labelled serverless.fluid.io/inject=true get the runtime's FUSE
# container as a sidecar for each dataset volume, and the volume is rewritten
# to a hostPath of the FUSE mount (with the sub-path). The sidecar is a native
# sidecar where the cluster supports it, gets a mount-readiness gate unless
# fuse.sidecar.poststart.fluid.io/inject=false, drops its privileges for
# Pods labelled unprivileged.sidecar.fluid.io/inject=true, and gets the
# environment variables and resources the platform sets.
package sluice.mutating

import rego.v1

native_sidecars if data.sluice.config.mutating.sidecar.mode == "native"

native_sidecars if {
	data.sluice.config.mutating.sidecar.mode == "auto"
	input.cluster.nativeSidecars
}

mount_path(v) := v.dataset.volume.fluidPath if v.dataset.volume.subPath == ""

mount_path(v) := concat("/", [trim_right(v.dataset.volume.fluidPath, "/"), trim_left(v.dataset.volume.subPath, "/")]) if {
	v.dataset.volume.subPath != ""
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
sidecars contains {
	"volume": v.volume,
	"dataset": dataset_ref(v.dataset),
	"mountPath": v.dataset.volume.fluidPath,
	"mode": mode,
	"unprivileged": unprivileged_flag,
	"readinessGate": gate,
	"env": env,
	"resources": {"limits": limits, "requests": requests},
} if {
	serverless
	mode := sidecar_mode
	unprivileged_flag := unprivileged
	gate := readiness_gate
	env := sidecar_env
	limits := sidecar_limits
	requests := sidecar_requests
	some v in input.datasetVolumes
}

volume_rewrites contains {"volume": v.volume, "hostPath": mount_path(v)} if {
	serverless
	some v in input.datasetVolumes
}

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
