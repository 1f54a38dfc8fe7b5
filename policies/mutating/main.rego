# Sluice mutating decision.
#
# Assembles the decision document that the mutating webhook applies to a
# Pod. Every other module of package sluice.mutating contributes to the
# partial rules below; platform teams extend the decision by adding modules
# to this package, or replace a default module by shipping one with the
# same file name.
package sluice.mutating

import rego.v1

config := data.sluice.config.mutating

pod := input.pod

labels := object.get(pod.metadata, "labels", {})

annotations := object.get(pod.metadata, "annotations", {})

# Every Pod volume backed by a dataset PVC, as gathered by the webhook.
dataset_volumes := object.get(input, "datasetVolumes", [])

uses_datasets if count(dataset_volumes) > 0

# Pods labelled for FUSE sidecar injection (serverless mode).
serverless if labels["serverless.fluid.io/inject"] == "true"

serverless if labels["fuse.sidecar.fluid.io/inject"] == "true"

# Pods that read datasets through the CSI plugin and get data affinity.
serverful if {
	not serverless
	labels["fuse.serverful.fluid.io/inject"] == "true"
}

serverful if {
	not serverless
	uses_datasets
	config.affinity.allDatasetPods
}

dataset_ref(ds) := sprintf("%s/%s", [ds.namespace, ds.name])

# Preferred terms, heaviest first (ties in the value order of the terms).
preferred_by_weight := [p |
	some w in array.reverse(sort({t.weight | some t in preferred_terms}))
	some p in preferred_terms
	p.weight == w
]

decision := {
	"deny": [d | some d in deny],
	"warnings": [w | some w in warnings],
	"affinity": {
		"required": [r | some r in required_requirements],
		"preferred": preferred_by_weight,
	},
	"mountPropagation": [m | some m in mount_propagation],
	"annotations": pod_annotations,
	"labels": pod_labels,
	"volumeRewrites": [v | some v in volume_rewrites],
	"sidecars": [s | some s in sidecars],
}
