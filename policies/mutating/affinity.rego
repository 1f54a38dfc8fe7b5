# Data affinity.
#
# Serverful Pods that use datasets prefer nodes that cache them (tiered
# locality: node, zone, region), require them when labelled
# fluid.io/dataset.<name>.sched=required, and require nodes where the
# runtime's FUSE may run. Serverful Pods that use no dataset prefer nodes
# without cache (on by default, as in Fluid). The Go mutator ANDs the
# required requirements (the FUSE nodeSelectors, and what modules add) into
# every required term of the Pod, and the required terms (one per dataset
# labelled sched=required) as one OR-ed choice, as Fluid does:
#
#   (T1 or … or Tn) and R1 and … and Rm and (D1 or … or Dk)
#
# with T the Pod's own terms, R the requirements and D the datasets' terms
# (docs/policies.md, "Required data affinity across several datasets").
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

# constrained_key(key) holds when the Pod already constrains node label key
# itself (nodeSelector, or a node affinity term); Sluice adds nothing for
# it. A function of three bodies, each failing at its first lookup for a Pod
# without such constraints: partial evaluation turns the negation below into
# a support rule called once per candidate requirement, and a rule building
# the Pod's key set would be rebuilt on every call.
constrained_key(key) if input.pod.spec.nodeSelector[key]

constrained_key(key) if {
	some term in input.pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
	term.matchExpressions[_].key == key
}

constrained_key(key) if {
	some p in input.pod.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution
	p.preference.matchExpressions[_].key == key
}

# The rules below inline sched_required and locality_requirements: a
# function call costs more than the lookup it wraps.
# METADATA
# description: "Node affinity for dataset Pods: preferred tiers toward the nodes that cache their datasets, required ones for sched=required, and nodes without cache for Pods without datasets."
preferred_terms contains {"weight": loc.weight, "preference": {"matchExpressions": [req]}} if {
	serverful
	some v in input.datasetVolumes
	not input.pod.metadata.labels[v.dataset.labels.sched] == "required"
	some loc in data.sluice.config.mutating.affinity.preferred
	some req in v.dataset.localities[loc.name]
	not constrained_key(req.key)
}

# One term per dataset labelled sched=required: the requirements of every
# required locality of it (AND, as Fluid's docs say of several names). A
# node must match one of these terms, not all: Fluid appends one term per
# dataset, and Kubernetes ORs terms. A dataset with no known required
# locality adds no term (and a warning, below).
required_terms contains {"matchExpressions": reqs} if {
	serverful
	some v in input.datasetVolumes
	input.pod.metadata.labels[v.dataset.labels.sched] == "required"
	reqs := [req |
		some name in data.sluice.config.mutating.affinity.required
		some req in v.dataset.localities[name]
	]
	count(reqs) > 0
}

required_requirements contains {"key": key, "operator": "In", "values": [value]} if {
	serverful
	data.sluice.config.mutating.affinity.requireFuseNodes
	some v in input.datasetVolumes
	some key, value in v.dataset.runtime.fuseNodeSelector
}

preferred_terms contains {"weight": 100, "preference": {"matchExpressions": [{"key": "fluid.io/dataset-num", "operator": "DoesNotExist"}]}} if {
	data.sluice.config.mutating.preferNodesWithoutCache.enabled
	prefers_no_cache_candidate
	not uses_datasets
	not constrained_key("fluid.io/dataset-num")
}

# Fluid runs PreferNodesWithoutCache for serverful Pods without datasets;
# a Pod labelled for a sidecar too is serverless there, and gets nothing.
prefers_no_cache_candidate if {
	not serverless
	input.pod.metadata.labels["fuse.serverful.fluid.io/inject"] == "true"
}

prefers_no_cache_candidate if data.sluice.config.mutating.preferNodesWithoutCache.allPods

warnings contains msg if {
	serverful
	some v in input.datasetVolumes
	input.pod.metadata.labels[v.dataset.labels.sched] == "required"
	some name in data.sluice.config.mutating.affinity.required
	count(object.get(v.dataset.localities, name, [])) == 0
	msg := sprintf("dataset %s: required locality %q is unknown for its runtime; no requirement added", [dataset_ref(v.dataset), name])
}
