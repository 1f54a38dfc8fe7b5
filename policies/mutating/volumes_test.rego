package sluice.mutating_test

import rego.v1

import data.sluice.mutating

test_dataset_volumes_get_host_to_container_propagation if {
	d := mutating.decision with input as input_for(serverful_pod, one_volume(bound("imagenet")))
	d.mountPropagation == {{"volume": "data", "mode": "HostToContainer"}}
}

test_propagation_can_be_turned_off if {
	d := mutating.decision with input as input_for(serverful_pod, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.mountPropagation.enabled as false
	d.mountPropagation == set()
}

test_datasets_in_use_is_sorted_and_joined if {
	vols := [
		{"volume": "z", "claim": "zeta", "dataset": bound("zeta")},
		{"volume": "a", "claim": "alpha", "dataset": bound("alpha")},
	]
	d := mutating.decision with input as input_for(plain_pod, vols)
	d.annotations == {"fluid.io/datasets-in-use": "alpha,zeta"}
}

test_no_annotation_without_datasets if {
	d := mutating.decision with input as input_for(plain_pod, [])
	d.annotations == {}
}
