# Datasets denied to namespaces.
#
# data.sluice.config.custom.deniedDatasets maps a Pod's namespace to the
# datasets its Pods may not use: "<namespace>/<name>", or "<namespace>/*"
# for every dataset of a namespace. The denial holds whatever else allows
# the dataset (crossNamespace.allow): a deny rule only adds.
package sluice.mutating

import rego.v1

deny contains {"rule": "dataset-denied-to-namespace", "message": msg} if {
	some v in input.datasetVolumes
	some pattern in object.get(data.sluice.config.custom.deniedDatasets, input.request.namespace, [])
	pattern in {dataset_ref(v.dataset), sprintf("%s/*", [v.dataset.namespace])}
	msg := sprintf("volume %q uses dataset %s, which Pods in namespace %q may not use", [v.volume, dataset_ref(v.dataset), input.request.namespace])
}
