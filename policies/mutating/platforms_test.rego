package sluice.mutating_test

import rego.v1

import data.sluice.mutating

edge := {"edge": {"unprivileged": true, "env": {"FUSE_MODE": "edge"}, "args": {"cache-size": {"env": "FUSE_CACHE_SIZE"}}}}

platform_pod(platform, extra) := pod({"serverless.fluid.io/inject": "true"}, object.union({"serverless.fluid.io/platform": platform}, extra))

test_default_platform_is_the_plain_sidecar if {
	d := mutating.decision with input as input_for(platform_pod("default", {}), one_volume(bound("imagenet")))
	only(d.sidecars).unprivileged == false
	d.deny == set()
}

test_unprivileged_platform_drops_privileges if {
	d := mutating.decision with input as input_for(platform_pod("unprivileged", {}), one_volume(bound("imagenet")))
	only(d.sidecars).unprivileged == true
}

test_unknown_platform_is_denied_naming_the_known_ones if {
	d := mutating.decision with input as input_for(platform_pod("ack", {}), one_volume(bound("imagenet")))
		with data.sluice.config.mutating.platforms as edge
	d.deny == {{"rule": "unknown-platform", "message": "serverless.fluid.io/platform: unknown platform \"ack\"; the platforms are default, edge, unprivileged (policy data mutating.platforms adds others)"}}
}

test_a_platform_from_policy_data_sets_its_sidecars if {
	p := platform_pod("edge", {"edge.fluid.io/cache-size": "10Gi"})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.platforms as edge
	d.deny == set()
	d.warnings == set()
	only(d.sidecars).unprivileged == true
	only(d.sidecars).env == {{"name": "FUSE_MODE", "value": "edge"}, {"name": "FUSE_CACHE_SIZE", "value": "10Gi"}}
}

test_an_argument_the_platform_does_not_read_warns if {
	p := platform_pod("edge", {"edge.fluid.io/cache-size": "10Gi", "edge.fluid.io/speed": "fast"})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.platforms as edge
	d.warnings == {"edge.fluid.io/speed: platform \"edge\" reads no argument \"speed\" (it reads cache-size); the annotation changes nothing"}
	count(only(d.sidecars).env) == 2
}

test_arguments_of_a_built_in_platform_warn if {
	p := platform_pod("default", {"default.fluid.io/x": "1"})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	d.warnings == {"default.fluid.io/x: platform \"default\" reads no argument \"x\" (it reads none); the annotation changes nothing"}
}

test_platform_annotation_without_sidecar_warns if {
	p := pod({"fuse.serverful.fluid.io/inject": "true"}, {"serverless.fluid.io/platform": "edge"})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	d.deny == set()
	contains(only(d.warnings), "serverless.fluid.io/platform: the Pod gets no FUSE sidecar")
}

test_a_platform_in_policy_data_is_inert_for_other_pods if {
	d := mutating.decision with input as input_for(serverless_pod, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.platforms as edge
	only(d.sidecars).env == set()
	only(d.sidecars).unprivileged == false
}
