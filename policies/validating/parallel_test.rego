package sluice.validating_test

import rego.v1

import data.sluice.validating

migrate_input(spec) := json.patch(
	load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {"spec": spec}),
	[{"op": "replace", "path": "/kind", "value": "DataMigrate"}],
)

test_parallel_migration_is_denied if {
	d := validating.decision with input as migrate_input({"parallelism": 4, "parallelOptions": {"sshPort": "22"}})
	d.deny == {
		{"rule": "operation-parallelism", "message": "spec.parallelism: 4 workers: parallel migration is not supported yet; use 1 and the copy's own threads (e.g. spec.options.threads for juicefs sync)"},
		{"rule": "operation-parallelism", "message": "spec.parallelOptions: parallel migration is not supported yet; remove it"},
	}
}

test_one_worker_is_admitted if {
	d := validating.decision with input as migrate_input({"parallelism": 1})
	count(d.deny) == 0
}

test_a_dataload_has_no_parallelism_rule if {
	d := validating.decision with input as load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {"spec": {"parallelism": 4}})
	not "operation-parallelism" in rules(d)
}
