package sluice.mutating_test

import rego.v1

import data.sluice.mutating

cache_pref(ds) := {"weight": 100, "preference": {"matchExpressions": [{"key": sprintf("fluid.io/s-team-a-%s", [ds]), "operator": "In", "values": ["true"]}]}}

test_serverful_pod_prefers_cache_nodes_with_tiered_locality if {
	d := mutating.decision with input as input_for(serverful_pod, one_volume(bound("imagenet")))
	{t | some t in d.affinity.preferred} == {
		{"weight": 20, "preference": {"matchExpressions": [{"key": "topology.kubernetes.io/region", "operator": "In", "values": ["region-1"]}]}},
		{"weight": 50, "preference": {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]}]}},
		cache_pref("imagenet"),
	}
	d.affinity.required == set()
	d.affinity.requiredTerms == set()
}

test_unlabelled_pod_gets_no_affinity_by_default if {
	d := mutating.decision with input as input_for(plain_pod, one_volume(bound("imagenet")))
	d.affinity == {"required": set(), "requiredTerms": set(), "preferred": set()}
}

test_all_dataset_pods_option_adds_affinity_without_label if {
	d := mutating.decision with input as input_for(plain_pod, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.affinity.allDatasetPods as true
	cache_pref("imagenet") in d.affinity.preferred
}

cache_term(ds) := {"matchExpressions": [{"key": sprintf("fluid.io/s-team-a-%s", [ds]), "operator": "In", "values": ["true"]}]}

test_sched_required_label_turns_preference_into_requirement if {
	p := pod({"fuse.serverful.fluid.io/inject": "true", "fluid.io/dataset.imagenet.sched": "required"}, {})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	d.affinity.requiredTerms == {cache_term("imagenet")}
	d.affinity.required == set()
	d.affinity.preferred == set()
}

two_volumes := [
	{"volume": "a", "claim": "a", "dataset": bound("a")},
	{"volume": "b", "claim": "b", "dataset": bound("b")},
]

# Fluid appends one required term per dataset, and Kubernetes ORs terms: a
# node caching either dataset will do, not only one caching both.
test_two_required_datasets_give_one_term_each if {
	p := pod({"fuse.serverful.fluid.io/inject": "true", "fluid.io/dataset.a.sched": "required", "fluid.io/dataset.b.sched": "required"}, {})
	d := mutating.decision with input as input_for(p, two_volumes)
	d.affinity.requiredTerms == {cache_term("a"), cache_term("b")}
	d.affinity.required == set()
	d.affinity.preferred == set()
}

test_only_the_labelled_dataset_is_required if {
	p := pod({"fuse.serverful.fluid.io/inject": "true", "fluid.io/dataset.b.sched": "required"}, {})
	d := mutating.decision with input as input_for(p, two_volumes)
	d.affinity.requiredTerms == {cache_term("b")}
	cache_pref("a") in d.affinity.preferred
	not cache_pref("b") in d.affinity.preferred
}

test_a_dataset_requiring_several_localities_needs_all_of_them if {
	p := pod({"fuse.serverful.fluid.io/inject": "true", "fluid.io/dataset.a.sched": "required", "fluid.io/dataset.b.sched": "required"}, {})
	d := mutating.decision with input as input_for(p, two_volumes)
		with data.sluice.config.mutating.affinity.required as ["fluid.io/node", "topology.kubernetes.io/zone"]
	zone := {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]}
	d.affinity.requiredTerms == {
		{"matchExpressions": array.concat(cache_term("a").matchExpressions, [zone])},
		{"matchExpressions": array.concat(cache_term("b").matchExpressions, [zone])},
	}
}

test_required_zone_locality_comes_from_cache_affinity if {
	p := pod({"fuse.serverful.fluid.io/inject": "true", "fluid.io/dataset.imagenet.sched": "required"}, {})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.affinity.required as ["topology.kubernetes.io/zone"]
	d.affinity.requiredTerms == {{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]}]}}
}

test_unknown_required_locality_warns if {
	p := pod({"fuse.serverful.fluid.io/inject": "true", "fluid.io/dataset.imagenet.sched": "required"}, {})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.affinity.required as ["example.com/rack"]
	count(d.warnings) == 1
	d.affinity.requiredTerms == set()
}

test_sched_required_needs_a_serverful_pod if {
	p := pod({"fluid.io/dataset.imagenet.sched": "required"}, {})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	d.affinity.requiredTerms == set()
}

test_fuse_node_selector_becomes_required if {
	ds := object.union(bound("imagenet"), {"runtime": object.union(bound("imagenet").runtime, {"fuseNodeSelector": {"gpu": "true"}})})
	d := mutating.decision with input as input_for(serverful_pod, one_volume(ds))
	d.affinity.required == {{"key": "gpu", "operator": "In", "values": ["true"]}}
}

test_fuse_node_selector_can_be_turned_off if {
	ds := object.union(bound("imagenet"), {"runtime": object.union(bound("imagenet").runtime, {"fuseNodeSelector": {"gpu": "true"}})})
	d := mutating.decision with input as input_for(serverful_pod, one_volume(ds))
		with data.sluice.config.mutating.affinity.requireFuseNodes as false
	d.affinity.required == set()
}

test_keys_the_pod_constrains_are_left_alone if {
	p := json.patch(serverful_pod, [{"op": "add", "path": "/spec/nodeSelector", "value": {"topology.kubernetes.io/zone": "zone-b"}}])
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	every t in d.affinity.preferred {
		t.preference.matchExpressions[0].key != "topology.kubernetes.io/zone"
	}
	count(d.affinity.preferred) == 2
}

test_two_datasets_each_get_preferences if {
	vols := [
		{"volume": "a", "claim": "a", "dataset": bound("a")},
		{"volume": "b", "claim": "b", "dataset": bound("b")},
	]
	d := mutating.decision with input as input_for(serverful_pod, vols)
	cache_pref("a") in d.affinity.preferred
	cache_pref("b") in d.affinity.preferred
}

no_cache_pref := {"weight": 100, "preference": {"matchExpressions": [{"key": "fluid.io/dataset-num", "operator": "DoesNotExist"}]}}

# On by default, as in Fluid's default webhook plugin profile
# (serverful.withoutDataset: [PreferNodesWithoutCache]).
test_prefer_nodes_without_cache_is_on_by_default if {
	d := mutating.decision with input as input_for(serverful_pod, [])
	d.affinity.preferred == {no_cache_pref}
}

test_prefer_nodes_without_cache_can_be_turned_off if {
	d := mutating.decision with input as input_for(serverful_pod, [])
		with data.sluice.config.mutating.preferNodesWithoutCache.enabled as false
	d.affinity.preferred == set()
}

test_prefer_nodes_without_cache_not_for_dataset_pods if {
	d := mutating.decision with input as input_for(serverful_pod, one_volume(bound("imagenet")))
	not no_cache_pref in d.affinity.preferred
}

test_prefer_nodes_without_cache_not_for_unlabelled_or_serverless_pods if {
	both := pod({"fuse.serverful.fluid.io/inject": "true", "serverless.fluid.io/inject": "true"}, {})
	every p in [plain_pod, serverless_pod, both] {
		d := mutating.decision with input as input_for(p, [])
		d.affinity.preferred == set()
	}
}

test_prefer_nodes_without_cache_leaves_a_pod_constraining_dataset_num if {
	p := json.patch(serverful_pod, [{"op": "add", "path": "/spec/nodeSelector", "value": {"fluid.io/dataset-num": "1"}}])
	d := mutating.decision with input as input_for(p, [])
	d.affinity.preferred == set()
}

test_prefer_nodes_without_cache_all_pods if {
	d := mutating.decision with input as input_for(plain_pod, [])
		with data.sluice.config.mutating.preferNodesWithoutCache as {"enabled": true, "allPods": true}
	count(d.affinity.preferred) == 1
}
