package sluice.validating_test

import rego.v1

import data.sluice.validating

kind_input(kind, engine) := json.patch(
	load_input("CREATE", {"namespace": "team-a", "name": "imagenet", "runtimeType": engine}, {}),
	[{"op": "replace", "path": "/kind", "value": kind}],
)

test_an_engine_that_cannot_run_the_kind_warns if {
	d := validating.decision with input as kind_input("DataBackup", "juicefs")
	d.warnings == {"dataset team-a/imagenet: the juicefs engine cannot run a DataBackup; the operation will fail (engines that can: alluxio)"}
	count(d.deny) == 0
}

test_an_engine_that_runs_the_kind_does_not_warn if {
	d := validating.decision with input as kind_input("DataMigrate", "juicefs")
	count(d.warnings) == 0
}

test_any_engine_runs_a_data_process if {
	d := validating.decision with input as kind_input("DataProcess", "efc")
	count(d.warnings) == 0
}

test_an_unbound_dataset_does_not_warn if {
	d := validating.decision with input as load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {})
	count(d.warnings) == 0
}

test_thin_loads_but_cannot_migrate if {
	load := validating.decision with input as kind_input("DataLoad", "thin")
	count(load.warnings) == 0
	migrate := validating.decision with input as kind_input("DataMigrate", "thin")
	migrate.warnings == {"dataset team-a/imagenet: the thin engine cannot run a DataMigrate; the operation will fail (engines that can: juicefs)"}
}

test_a_caveat_warns if {
	d := validating.decision with input as kind_input("DataLoad", "thin")
		with data.sluice.config.validating.operations.engines.DataLoad as ["thin"]
		with data.sluice.config.validating.operations.caveats.DataLoad as {"thin": "runs only when its profile says so"}
	d.warnings == {"dataset team-a/imagenet: runs only when its profile says so"}
}

test_the_support_table_is_policy_data if {
	d := validating.decision with input as kind_input("DataBackup", "juicefs")
		with data.sluice.config.validating.operations.engines.DataBackup as ["alluxio", "juicefs"]
	count(d.warnings) == 0
}
