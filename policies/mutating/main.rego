# Sluice mutating decision.
#
# Assembles the decision document that the mutating webhook applies to a
# Pod. Every other module of package sluice.mutating contributes to the
# partial rules below; platform teams extend the decision by adding modules
# to this package, or replace a default module by shipping one with the
# same file name.
package sluice.mutating

import rego.v1

# Helpers for modules that extend the decision. The default modules read
# input.pod.metadata.labels, input.datasetVolumes and data.sluice.config
# directly instead: every reference to another rule costs a lookup in the
# evaluator, and these rules run on every Pod CREATE. The webhook always
# sends datasetVolumes (a list, empty without datasets) and the Pod's
# metadata as an object, so both forms agree on every input it sends.
config := data.sluice.config.mutating

pod := input.pod

labels := object.get(pod.metadata, "labels", {})

annotations := object.get(pod.metadata, "annotations", {})

# Every Pod volume backed by a dataset PVC, as gathered by the webhook.
dataset_volumes := object.get(input, "datasetVolumes", [])

uses_datasets if count(input.datasetVolumes) > 0

# Pods labelled for FUSE sidecar injection (serverless mode), unless they
# opted out of injection (fluid.io/enable-injection=false): the webhook
# judges those by the deny rules only, so the rules about the sidecar they
# will not get must not refuse them.
serverless if {
	input.pod.metadata.labels["serverless.fluid.io/inject"] == "true"
	not input.pod.metadata.labels["fluid.io/enable-injection"] == "false"
}

serverless if {
	input.pod.metadata.labels["fuse.sidecar.fluid.io/inject"] == "true"
	not input.pod.metadata.labels["fluid.io/enable-injection"] == "false"
}

# Pods that read datasets through the CSI plugin and get data affinity.
serverful if {
	not serverless
	input.pod.metadata.labels["fuse.serverful.fluid.io/inject"] == "true"
}

serverful if {
	data.sluice.config.mutating.affinity.allDatasetPods
	not serverless
	uses_datasets
}

dataset_ref(ds) := sprintf("%s/%s", [ds.namespace, ds.name])

# Sets become lists in the decision document; the webhook orders preferred
# terms by weight, heaviest first.
decision := {
	"deny": deny,
	"warnings": warnings,
	"affinity": {
		"required": required_requirements,
		"requiredTerms": required_terms,
		"preferred": preferred_terms,
	},
	"mountPropagation": mount_propagation,
	"annotations": pod_annotations,
	"labels": pod_labels,
	"volumeRewrites": volume_rewrites,
	"sidecars": sidecars,
	"appPostStart": app_post_start,
}
