package examples.deny_dataset_test

import rego.v1

import data.sluice.mutating

volume(ns, name) := {"volume": "data", "claim": name, "dataset": {"namespace": ns, "name": name, "phase": "Bound"}}

input_for(namespace, volumes) := {
	"request": {"operation": "CREATE", "namespace": namespace},
	"pod": {"metadata": {"name": "notebook", "namespace": namespace}, "spec": {}},
	"datasetVolumes": volumes,
	"cluster": {"nativeSidecars": true},
}

test_contractors_may_not_use_customer_pii if {
	d := mutating.decision with input as input_for("contractors", [volume("shared", "customer-pii")])
	{x.rule | some x in d.deny} == {"dataset-denied-to-namespace"}
}

test_contractors_may_use_other_shared_datasets if {
	d := mutating.decision with input as input_for("contractors", [volume("shared", "imagenet")])
	d.deny == set()
}

test_other_namespaces_may_use_customer_pii if {
	d := mutating.decision with input as input_for("team-a", [volume("shared", "customer-pii")])
	d.deny == set()
}

test_a_namespace_pattern_denies_every_dataset if {
	d := mutating.decision with input as input_for("contractors", [volume("shared", "imagenet")])
		with data.sluice.config.custom.deniedDatasets as {"contractors": ["shared/*"]}
	{x.rule | some x in d.deny} == {"dataset-denied-to-namespace"}
}
