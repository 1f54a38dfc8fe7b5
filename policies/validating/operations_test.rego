package sluice.validating_test

import rego.v1

import data.sluice.validating

load_input(op, target, extra) := {
	"request": req(op), "kind": "DataLoad",
	"object": object.union({"metadata": {"name": "warm", "namespace": "team-a"}, "spec": {"dataset": {"name": "imagenet"}}}, extra),
	"oldObject": null,
	"facts": {"target": target, "replicas": 0, "bound": false, "mountsChanged": false},
}

test_create_claims_the_target_against_conflicting_kinds if {
	d := validating.decision with input as load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {})
	d.claims == {{"dataset": "team-a/imagenet", "kind": "DataLoad", "conflicts": ["DataLoad", "DataMigrate"]}}
	count(d.deny) == 0
}

test_conflict_table_is_policy_data if {
	d := validating.decision with input as load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {})
		with data.sluice.config.validating.operations.conflicts.DataLoad as ["DataMigrate"]
	some c in d.claims
	c.conflicts == ["DataMigrate"]
}

test_update_does_not_claim if {
	d := validating.decision with input as load_input("UPDATE", {"namespace": "team-a", "name": "imagenet"}, {})
	count(d.claims) == 0
}

test_dataset_in_another_namespace_is_denied if {
	d := validating.decision with input as load_input("CREATE", {"namespace": "other", "name": "imagenet"}, {})
	rules(d) == {"operation-dataset-namespace"}
	count(d.claims) == 0
}

test_missing_run_after_warns if {
	inp := json.patch(load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {"spec": {"runAfter": {"kind": "DataMigrate", "name": "sync"}}}), [{"op": "add", "path": "/facts/runAfter", "value": {"exists": false}}])
	d := validating.decision with input as inp
	d.warnings == {"spec.runAfter: DataMigrate \"sync\" does not exist (yet); this operation waits for it"}
}
