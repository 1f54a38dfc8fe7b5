package sluice.validating_test

import rego.v1

import data.sluice.validating

ref_facts(extra) := object.union(
	{
		"field": "", "error": "", "namespace": "team-b", "name": "imagenet", "subPath": "",
		"exists": true, "chain": "", "referableFrom": [], "runtime": "", "ignored": [],
	},
	extra,
)

ref_input(op, ref) := dataset_input(op, [], {"reference": ref, "wasReference": false})

test_same_namespace_reference_is_allowed if {
	d := validating.decision with input as ref_input("CREATE", ref_facts({"namespace": "team-a"}))
	count(d.deny) == 0
}

test_same_namespace_reference_to_a_missing_dataset_warns if {
	d := validating.decision with input as ref_input("CREATE", ref_facts({"namespace": "team-a", "exists": false}))
	count(d.deny) == 0
	some w in d.warnings
	contains(w, "Dataset team-a/imagenet does not exist yet")
}

test_cross_namespace_reference_needs_the_targets_opt_in if {
	d := validating.decision with input as ref_input("CREATE", ref_facts({}))
	rules(d) == {"reference-not-allowed"}
	some x in d.deny
	contains(x.message, `Dataset team-b/imagenet does not let namespace "team-a" reference it`)

	named := validating.decision with input as ref_input("CREATE", ref_facts({"referableFrom": ["team-c", "team-a"]}))
	count(named.deny) == 0
	anyone := validating.decision with input as ref_input("CREATE", ref_facts({"referableFrom": ["*"]}))
	count(anyone.deny) == 0
	others := validating.decision with input as ref_input("CREATE", ref_facts({"referableFrom": ["team-c"]}))
	rules(others) == {"reference-not-allowed"}
}

test_policy_data_allows_a_reference if {
	inp := ref_input("CREATE", ref_facts({"exists": false}))
	missing := validating.decision with input as inp
	some x in missing.deny
	contains(x.message, "Dataset team-b/imagenet does not exist")

	allow := [{"namespace": "team-a", "datasetNamespace": "team-b", "dataset": "*"}]
	d := validating.decision with input as inp with data.sluice.config.validating.references.allow as allow
	count(d.deny) == 0
	other := [{"namespace": "team-c", "datasetNamespace": "*", "dataset": "*"}]
	o := validating.decision with input as inp with data.sluice.config.validating.references.allow as other
	rules(o) == {"reference-not-allowed"}
}

test_the_annotation_of_a_missing_dataset_allows_nothing if {
	d := validating.decision with input as ref_input("CREATE", ref_facts({"exists": false, "referableFrom": ["*"]}))
	rules(d) == {"reference-not-allowed"}
}

test_malformed_references_are_denied_naming_the_field if {
	d := validating.decision with input as ref_input("CREATE", ref_facts({"field": "spec.mounts", "error": "a Dataset with a dataset:// mount has that one mount only (it has 2 mounts)"}))
	rules(d) == {"reference-form"}
	some x in d.deny
	x.message == "spec.mounts: a Dataset with a dataset:// mount has that one mount only (it has 2 mounts)"
}

test_a_dataset_cannot_reference_itself if {
	d := validating.decision with input as ref_input("CREATE", ref_facts({"namespace": "team-a", "name": "ds"}))
	rules(d) == {"reference-self"}
}

test_chains_are_denied if {
	d := validating.decision with input as ref_input("CREATE", ref_facts({"namespace": "team-a", "chain": "dataset://team-c/raw"}))
	rules(d) == {"reference-chain"}
}

test_a_runtime_of_another_kind_denies_the_reference if {
	d := validating.decision with input as ref_input("CREATE", ref_facts({"namespace": "team-a", "runtime": "JuiceFSRuntime ds"}))
	rules(d) == {"reference-runtime"}
}

test_reference_mounts_are_fixed if {
	changed := object.union(ref_input("UPDATE", ref_facts({"namespace": "team-a"})), {"facts": {"mountsChanged": true}})
	d := validating.decision with input as changed
	rules(d) == {"reference-mounts-fixed"}
	became := dataset_input("UPDATE", [], {"mountsChanged": true, "wasReference": true})
	b := validating.decision with input as became
	rules(b) == {"reference-mounts-fixed"}
	same := validating.decision with input as ref_input("UPDATE", ref_facts({}))
	count(same.deny) == 0
	plain := validating.decision with input as dataset_input("UPDATE", [], {"mountsChanged": true, "wasReference": false})
	count(plain.deny) == 0
}

test_ignored_fields_are_warned if {
	d := validating.decision with input as ref_input("CREATE", ref_facts({"namespace": "team-a", "ignored": ["spec.nodeAffinity"]}))
	count(d.deny) == 0
	d.warnings == {"spec.nodeAffinity: has no effect on a reference dataset, which serves the cache of team-a/imagenet as that Dataset's runtime makes it"}
}

thin_input(op, old_profile, profile, extra) := {
	"request": req(op), "kind": "ThinRuntime",
	"object": {"metadata": {"name": "ds", "namespace": "team-a"}, "spec": {"profileName": profile}},
	"oldObject": {"metadata": {"name": "ds", "namespace": "team-a"}, "spec": {"profileName": old_profile}},
	"facts": object.union({"levels": [], "replicas": 0, "bound": false, "mountsChanged": false}, extra),
}

test_only_a_profile_less_thin_runtime_serves_a_reference_dataset if {
	ref := {"datasetReference": "dataset://team-b/imagenet"}
	d := validating.decision with input as thin_input("CREATE", "", "", ref)
	count(d.deny) == 0
	p := validating.decision with input as thin_input("CREATE", "", "nfs", ref)
	rules(p) == {"reference-runtime"}
	j := validating.decision with input as object.union(runtime_input("CREATE", "ds", [], ref), {})
	rules(j) == {"reference-runtime"}
	plain := validating.decision with input as thin_input("CREATE", "", "nfs", {})
	count(plain.deny) == 0
}

test_a_thin_runtime_does_not_switch_between_reference_and_profile if {
	add := validating.decision with input as thin_input("UPDATE", "", "nfs", {})
	rules(add) == {"thin-profile-fixed"}
	drop := validating.decision with input as thin_input("UPDATE", "nfs", "", {})
	rules(drop) == {"thin-profile-fixed"}
	swap := validating.decision with input as thin_input("UPDATE", "nfs", "ceph", {})
	count(swap.deny) == 0
	none := validating.decision with input as thin_input("UPDATE", "", "", {})
	count(none.deny) == 0
}
