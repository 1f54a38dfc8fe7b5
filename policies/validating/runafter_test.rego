package sluice.validating_test

import rego.v1

import data.sluice.validating

after_input(run_after, run_after_facts) := json.patch(
	load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {"spec": {"runAfter": run_after}}),
	[{"op": "add", "path": "/facts/runAfter", "value": run_after_facts}],
)

test_run_after_in_another_namespace_is_denied if {
	d := validating.decision with input as after_input({"kind": "DataLoad", "name": "first", "namespace": "team-b"}, {"exists": true})
	rules(d) == {"operation-run-after-namespace"}
	some x in d.deny
	x.message == `spec.runAfter.namespace: DataLoad "first" must be in the operation's namespace "team-a", not "team-b"`
}

test_depend_on_in_another_namespace_is_denied if {
	ref := {"kind": "DataLoad", "name": "first", "affinityStrategy": {"dependOn": {"kind": "DataProcess", "name": "p", "namespace": "team-b"}}}
	d := validating.decision with input as after_input(ref, {"exists": true})
	some x in d.deny
	x.rule == "operation-run-after-namespace"
	startswith(x.message, "spec.runAfter.affinityStrategy.dependOn.namespace: DataProcess \"p\"")
}

test_run_after_in_the_own_namespace_is_allowed if {
	d := validating.decision with input as after_input({"kind": "DataLoad", "name": "first", "namespace": "team-a"}, {"exists": true})
	count(d.deny) == 0
}

test_a_cycle_is_denied_naming_the_chain if {
	facts := {"exists": true, "cycle": ["DataLoad warm", "DataProcess train", "DataLoad warm"]}
	d := validating.decision with input as after_input({"kind": "DataProcess", "name": "train"}, facts)
	d.deny == {{
		"rule": "operation-run-after-cycle",
		"message": "spec.runAfter: the operations would wait for each other for ever: DataLoad warm → DataProcess train → DataLoad warm",
	}}
}

test_an_operation_after_another_is_not_claimed_at_admission if {
	d := validating.decision with input as after_input({"kind": "DataLoad", "name": "first"}, {"exists": true})
	count(d.claims) == 0
}
