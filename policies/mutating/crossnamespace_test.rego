package sluice.mutating_test

import rego.v1

import data.sluice.mutating

# producer is team-b's dataset "raw", served by a FUSE template of image
# (the controller's record of it).
producer(image) := object.union(bound("raw"), {"namespace": "team-b", "runtime": {"namespace": "team-b", "fuseImage": image, "fuseRecord": true}})

allow_b := [{"podNamespace": "team-a", "datasetNamespace": "team-b", "dataset": "raw"}]

default_guards := data.sluice.config.validating.guards

test_cross_namespace_sidecar_of_another_registry_is_denied if {
	d := mutating.decision with input as input_for(serverless_pod, one_volume(producer("evil.example.com/fuse:1")))
		with data.sluice.config.mutating.crossNamespace.allow as allow_b
	some x in d.deny
	x.rule == "cross-namespace-sidecar-image"
	x.message == `volume "data" uses dataset team-b/raw, whose FUSE sidecar runs image "evil.example.com/fuse:1" chosen in namespace "team-b": it is not from a registry namespace "team-a" allows (allowed: alluxio/, docker.io/alluxio/, docker.io/juicedata/, juicedata/, registry.cn-shanghai.aliyuncs.com/jindofs/; policy data validating.guards.imagePrefixes)`
}

test_cross_namespace_sidecar_of_an_allowed_registry_is_injected if {
	d := mutating.decision with input as input_for(serverless_pod, one_volume(producer("juicedata/juicefs-fuse:ce-v1.2.1")))
		with data.sluice.config.mutating.crossNamespace.allow as allow_b
	count(d.deny) == 0
	count(d.sidecars) == 1
}

test_consumer_namespace_list_decides if {
	g := object.union(default_guards, {"team-a": {"imagePrefixes": ["evil.example.com"]}})
	d := mutating.decision with input as input_for(serverless_pod, one_volume(producer("evil.example.com/fuse")))
		with data.sluice.config.mutating.crossNamespace.allow as allow_b
		with data.sluice.config.validating.guards as g
	count(d.deny) == 0

	# team-b's own list does not count: the sidecar runs in team-a's Pod.
	g2 := object.union(default_guards, {"team-b": {"imagePrefixes": ["evil.example.com"]}})
	d2 := mutating.decision with input as input_for(serverless_pod, one_volume(producer("evil.example.com/fuse")))
		with data.sluice.config.mutating.crossNamespace.allow as allow_b
		with data.sluice.config.validating.guards as g2
	{x.rule | some x in d2.deny} == {"cross-namespace-sidecar-image"}
}

test_same_namespace_and_serverful_pods_are_not_judged if {
	own := object.union(bound("raw"), {"runtime": {"fuseImage": "evil.example.com/fuse"}})
	d := mutating.decision with input as input_for(serverless_pod, one_volume(own))
	count(d.deny) == 0
	d2 := mutating.decision with input as input_for(serverful_pod, one_volume(producer("evil.example.com/fuse")))
		with data.sluice.config.mutating.crossNamespace.allow as allow_b
	count(d2.deny) == 0
}

test_cross_namespace_sidecar_without_a_record_is_denied if {
	unrecorded := object.union(producer("juicedata/juicefs-fuse:ce-v1.2.1"), {"runtime": {"fuseRecord": false}})
	d := mutating.decision with input as input_for(serverless_pod, one_volume(unrecorded))
		with data.sluice.config.mutating.crossNamespace.allow as allow_b
	{x.rule | some x in d.deny} == {"cross-namespace-sidecar-record"}
	some x in d.deny
	contains(x.message, `volume "data" uses dataset team-b/raw, whose runtime team-b/`)

	# A serverful Pod gets no container from team-b: no record is needed.
	d2 := mutating.decision with input as input_for(serverful_pod, one_volume(unrecorded))
		with data.sluice.config.mutating.crossNamespace.allow as allow_b
	count(d2.deny) == 0
}
