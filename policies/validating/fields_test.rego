package sluice.validating_test

import rego.v1

import data.sluice.validating

fields_input(findings) := runtime_input("CREATE", "imagenet", [], {"fields": findings})

refused := {"path": "spec.apiGateway", "support": "refused", "message": "Sluice's Alluxio engine runs no API gateway (proxy); remove the field"}

warned := {"path": "spec.worker.enabled", "support": "warned", "message": "has no effect: Sluice always runs the workers"}

test_a_refused_field_is_denied_naming_it if {
	d := validating.decision with input as fields_input([refused])
	d.deny == {{"rule": "engine-field", "message": "spec.apiGateway: Sluice's Alluxio engine runs no API gateway (proxy); remove the field"}}
}

test_a_warned_field_is_admitted_with_a_warning if {
	d := validating.decision with input as fields_input([warned])
	count(d.deny) == 0
	d.warnings == {"spec.worker.enabled: has no effect: Sluice always runs the workers"}
}

test_no_findings_no_denial if {
	d := validating.decision with input as fields_input([])
	count(d.deny) == 0
	count(d.warnings) == 0
}

test_relaxed_refusals_warn if {
	d := validating.decision with input as fields_input([refused])
		with data.sluice.config.validating.fields.denyRefused as false
	count(d.deny) == 0
	d.warnings == {"spec.apiGateway: Sluice's Alluxio engine runs no API gateway (proxy); remove the field (the runtime will fail with InvalidSpec)"}
}

test_an_unchanged_refused_field_warns_on_update if {
	d := validating.decision with input as runtime_input("UPDATE", "imagenet", [], {"fields": [object.union(refused, {"unchanged": true})]})
	count(d.deny) == 0
	d.warnings == {"spec.apiGateway: Sluice's Alluxio engine runs no API gateway (proxy); remove the field (the runtime will fail with InvalidSpec)"}
}

test_a_refused_field_an_update_sets_is_denied if {
	d := validating.decision with input as runtime_input("UPDATE", "imagenet", [], {"fields": [refused]})
	d.deny == {{"rule": "engine-field", "message": "spec.apiGateway: Sluice's Alluxio engine runs no API gateway (proxy); remove the field"}}
}
