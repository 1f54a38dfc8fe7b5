# Dataset volume mounts and usage.
#
# HostToContainer mount propagation on every mount of a dataset volume
# (so that a restarted FUSE mount reaches running containers), and the
# fluid.io/datasets-in-use annotation.
package sluice.mutating

import rego.v1

# METADATA
# description: "HostToContainer propagation on dataset volume mounts, so that a restarted FUSE mount reaches running containers."
mount_propagation contains {"volume": v.volume, "mode": "HostToContainer"} if {
	data.sluice.config.mutating.mountPropagation.enabled
	some v in input.datasetVolumes
}

# The datasets' names, <namespace>/<name> for those of other namespaces.
# Comprehensions in the annotation's rule rather than a partial set: a set
# rule costs an evaluation of its own on every Pod CREATE.
in_use_names := {v.dataset.name |
	some v in input.datasetVolumes
	v.dataset.namespace == input.request.namespace
} | {dataset_ref(v.dataset) |
	some v in input.datasetVolumes
	v.dataset.namespace != input.request.namespace
}

# The key is bound in the body, not written in the head: a constant key in
# the head makes pod_annotations a tree of rules, whose value OPA assembles
# on every evaluation (about 10 % of the default decision's cost); a
# variable key keeps it one partial object rule. Both define the same
# object, and modules may add keys either way.
# METADATA
# description: "The labels and annotations that record what was injected (fluid.io/datasets-in-use, the sidecar's done label)."
pod_annotations[key] := concat(",", sort(in_use_names)) if {
	data.sluice.config.mutating.datasetsInUse.enabled
	uses_datasets
	key := "fluid.io/datasets-in-use"
}
