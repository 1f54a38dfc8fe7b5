# Data affinity.
#
# Serverful Pods that use datasets prefer nodes that cache them (tiered
# locality: node, zone, region), require them when labelled
# fluid.io/dataset.<name>.sched=required, and require nodes where the
# runtime's FUSE may run. Serverful Pods that use no dataset may prefer nodes
# without cache. Required requirements are AND-ed into every existing
# required term of the Pod by the Go mutator.
package sluice.mutating

import rego.v1

affinity_config := config.affinity

# A dataset's Pod label fluid.io/dataset.<name>.sched=required asks for
# required cache affinity (the label key is in the dataset's facts).
sched_required(ds) if labels[ds.labels.sched] == "required"

# locality_requirements(name, ds) are the node requirements that a locality
# name stands for: fluid.io/node (the node caches the dataset), fluid.io/fuse
# (the node runs its FUSE), or a node label key such as
# topology.kubernetes.io/zone taken from the runtime's cacheAffinity. The
# webhook precomputes them per dataset as ds.localities.
locality_requirements(name, ds) := object.get(ds.localities, name, [])

# Keys the Pod already constrains itself; Sluice adds nothing for them.
pod_constrained_keys contains key if {
	some key, _ in object.get(pod.spec, "nodeSelector", {})
}

pod_constrained_keys contains e.key if {
	some term in object.get(pod.spec, ["affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"], [])
	some e in object.get(term, "matchExpressions", [])
}

pod_constrained_keys contains e.key if {
	some p in object.get(pod.spec, ["affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution"], [])
	some e in object.get(p.preference, "matchExpressions", [])
}

preferred_terms contains {"weight": loc.weight, "preference": {"matchExpressions": [req]}} if {
	serverful
	some v in dataset_volumes
	not sched_required(v.dataset)
	some loc in affinity_config.preferred
	some req in locality_requirements(loc.name, v.dataset)
	not req.key in pod_constrained_keys
}

required_requirements contains req if {
	serverful
	some v in dataset_volumes
	sched_required(v.dataset)
	some name in affinity_config.required
	some req in locality_requirements(name, v.dataset)
}

required_requirements contains {"key": key, "operator": "In", "values": [value]} if {
	serverful
	affinity_config.requireFuseNodes
	some v in dataset_volumes
	some key, value in object.get(v.dataset.runtime, "fuseNodeSelector", {})
}

preferred_terms contains {"weight": 100, "preference": {"matchExpressions": [{"key": "fluid.io/dataset-num", "operator": "DoesNotExist"}]}} if {
	config.preferNodesWithoutCache.enabled
	prefers_no_cache_candidate
	not uses_datasets
	not "fluid.io/dataset-num" in pod_constrained_keys
}

prefers_no_cache_candidate if labels["fuse.serverful.fluid.io/inject"] == "true"

prefers_no_cache_candidate if config.preferNodesWithoutCache.allPods

warnings contains msg if {
	serverful
	some v in dataset_volumes
	sched_required(v.dataset)
	some name in affinity_config.required
	count(locality_requirements(name, v.dataset)) == 0
	msg := sprintf("dataset %s: required locality %q is unknown for its runtime; no requirement added", [dataset_ref(v.dataset), name])
}
