# Dataset admission checks.
#
# Denies Pods that use a dataset no runtime serves, or a reference dataset
# whose referenced Dataset no runtime serves (unless annotated
# sidecar.fluid.io/skip-precheck=true), or a dataset in another namespace
# that data.sluice.config.mutating.crossNamespace does not allow (a
# reference dataset is its own namespace's: who may reference whom is
# decided when it is created, policies/validating/references.rego). A
# dataset is served when it is Bound, Updating (a change of its mounts is
# being applied to the bound runtime) or Failed while bound (its runtime
# could not apply its current spec and serves the last one it applied), or
# DataMigrating when the DataMigrate migrating it does not ask its readers
# to wait (spec.block; Fluid admits the Pods of a migrating Dataset).
# With block: true, Pods are refused until the migration ends (rule
# dataset-migrating), also when that DataMigrate cannot be read.
package sluice.mutating

import rego.v1

skip_precheck if input.pod.metadata.annotations["sidecar.fluid.io/skip-precheck"] == "true"

served(ds) if ds.phase in {"Bound", "Updating"}

served(ds) if {
	ds.phase == "Failed"
	ds.runtime.name != ""
}

served(ds) if {
	ds.phase == "DataMigrating"
	ds.migration.found
	not ds.migration.block
}

# METADATA
# description: "A Pod may not use a dataset that a DataMigrate with block true is migrating."
deny contains {"rule": "dataset-migrating", "message": msg} if {
	some v in input.datasetVolumes
	v.dataset.phase == "DataMigrating"
	not served(v.dataset)
	not skip_precheck
	msg := migrating_message(v)
}

migrating_message(v) := sprintf("volume %q uses dataset %s, which DataMigrate %s is migrating with block: true; Pods of it wait until the migration ends", [v.volume, dataset_ref(v.dataset), v.dataset.migration.name]) if {
	v.dataset.migration.found
}

migrating_message(v) := sprintf("volume %q uses dataset %s, which is being migrated (phase DataMigrating) by DataMigrate %q, which cannot be read: whether its readers must wait (spec.block) is unknown", [v.volume, dataset_ref(v.dataset), object.get(v.dataset, ["migration", "name"], "")]) if {
	not v.dataset.migration.found
}

# METADATA
# description: "A Pod may not use a dataset no runtime serves, nor a reference dataset whose Dataset none serves (unless annotated sidecar.fluid.io/skip-precheck)."
deny contains {"rule": "dataset-not-bound", "message": msg} if {
	some v in input.datasetVolumes
	not served(v.dataset)
	v.dataset.phase != "DataMigrating"
	not skip_precheck
	phase := object.get({"": "None"}, v.dataset.phase, v.dataset.phase)
	msg := sprintf("volume %q uses dataset %s, which is not Bound (phase %s)", [v.volume, dataset_ref(v.dataset), phase])
}

# A reference dataset (dataset://) is served by the Dataset it references,
# which must be Bound (or Updating) too.
deny contains {"rule": "dataset-not-bound", "message": msg} if {
	some v in input.datasetVolumes
	r := v.dataset.reference
	not r.phase in {"Bound", "Updating"}
	not skip_precheck
	phase := object.get({"": "None"}, r.phase, r.phase)
	msg := sprintf("volume %q uses reference dataset %s, whose Dataset %s/%s is not Bound (phase %s)", [v.volume, dataset_ref(v.dataset), r.namespace, r.name, phase])
}

# METADATA
# description: "A Pod may use a dataset of another namespace only where mutating.crossNamespace.allow allows it."
deny contains {"rule": "dataset-cross-namespace", "message": msg} if {
	some v in input.datasetVolumes
	v.dataset.namespace != input.request.namespace
	not cross_namespace_allowed(v.dataset)
	msg := sprintf("volume %q uses dataset %s from namespace %q; no crossNamespace policy allows Pods in %q to use it", [v.volume, dataset_ref(v.dataset), v.dataset.namespace, input.request.namespace])
}

cross_namespace_allowed(ds) if {
	some rule in data.sluice.config.mutating.crossNamespace.allow
	matches(rule.podNamespace, input.request.namespace)
	matches(rule.datasetNamespace, ds.namespace)
	matches(rule.dataset, ds.name)
}

matches(pattern, _) if pattern == "*"

matches(pattern, value) if pattern == value
