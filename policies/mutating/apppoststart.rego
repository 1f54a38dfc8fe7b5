# App containers wait for their dataset mounts.
#
# Pods labelled app.poststart.fluid.io/inject=true get a postStart hook on
# each app container that mounts a dataset volume served through a hostPath
# of the FUSE mount (the volumes volume_rewrites rewrites): the hook waits,
# for at most mutating.appPostStart.timeoutSeconds, until each such mount
# path is a mounted FUSE file system, and fails the container (which the
# kubelet restarts) if it is not. A container with a postStart hook of its
# own keeps it, with a warning.
package sluice.mutating

import rego.v1

app_poststart_asked if input.pod.metadata.labels["app.poststart.fluid.io/inject"] == "true"

rewritten_volumes := {rw.volume | some rw in volume_rewrites}

app_dataset_mounts(c) := sort({m.mountPath |
	some m in c.volumeMounts
	m.name in rewritten_volumes
})

has_post_start(c) if c.lifecycle.postStart

# METADATA
# description: "postStart hooks that hold app containers until their dataset mounts are ready (label app.poststart.fluid.io/inject)."
app_post_start contains {
	"container": c.name,
	"mountPaths": paths,
	"timeoutSeconds": data.sluice.config.mutating.appPostStart.timeoutSeconds,
} if {
	app_poststart_asked
	some c in input.pod.spec.containers
	not has_post_start(c)
	paths := app_dataset_mounts(c)
	count(paths) > 0
}

warnings contains msg if {
	app_poststart_asked
	some c in input.pod.spec.containers
	has_post_start(c)
	count(app_dataset_mounts(c)) > 0
	msg := sprintf("app.poststart.fluid.io/inject: container %q has a postStart hook of its own, which is kept; it does not wait for the dataset mounts", [c.name])
}

warnings contains msg if {
	app_poststart_asked
	uses_datasets
	count(volume_rewrites) == 0
	msg := "app.poststart.fluid.io/inject: no dataset volume of the Pod is served by a FUSE sidecar (the CSI plugin mounts the others before the containers start), so the label changes nothing"
}
