package examples.operation_rules_test

import rego.v1

import data.sluice.validating

operation(kind, namespace, labels) := {
	"request": {"operation": "CREATE", "namespace": namespace},
	"kind": kind,
	"object": {"metadata": {"name": "op", "namespace": namespace, "labels": labels}, "spec": {"dataset": {"name": "imagenet"}}},
	"facts": {"target": {"namespace": namespace, "name": "imagenet"}},
}

test_datamigrate_denied_in_team_a if {
	d := validating.decision with input as operation("DataMigrate", "team-a", {})
	{x.rule | some x in d.deny} == {"operation-kind-denied"}
}

test_datamigrate_allowed_elsewhere if {
	d := validating.decision with input as operation("DataMigrate", "team-b", {})
	d.deny == set()
}

test_dataload_needs_cost_center if {
	d := validating.decision with input as operation("DataLoad", "team-a", {})
	{x.message | some x in d.deny} == {`metadata.labels["cost-center"]: every DataLoad carries this label`}
}

test_labelled_dataload_allowed if {
	d := validating.decision with input as operation("DataLoad", "team-a", {"cost-center": "cc-42"})
	d.deny == set()
}
