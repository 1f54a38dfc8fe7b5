package sluice.validating_test

import rego.v1

import data.sluice.validating

test_on_event_is_denied_as_not_supported if {
	d := validating.decision with input as load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {"spec": {"policy": "OnEvent"}})
	d.deny == {{"rule": "operation-policy", "message": "spec.policy: OnEvent is not supported yet; use Once, or Cron with spec.schedule"}}
}

test_a_schedule_that_does_not_parse_is_denied if {
	inp := json.patch(
		load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {"spec": {"policy": "Cron", "schedule": "every day"}}),
		[{"op": "add", "path": "/facts/schedule", "value": {"error": "expected exactly 5 fields, found 2: [every day]"}}],
	)
	d := validating.decision with input as inp
	d.deny == {{"rule": "operation-schedule", "message": `spec.schedule: "every day" is not a cron schedule: expected exactly 5 fields, found 2: [every day]`}}
}

test_a_cron_operation_is_not_claimed_at_admission if {
	inp := json.patch(
		load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {"spec": {"policy": "Cron", "schedule": "0 2 * * *"}}),
		[{"op": "add", "path": "/facts/schedule", "value": {"error": ""}}],
	)
	d := validating.decision with input as inp
	count(d.deny) == 0
	count(d.claims) == 0
}
