package sluice.validating_test

import rego.v1

import data.sluice.validating

migrate_input(spec) := json.patch(
	load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {"spec": spec}),
	[{"op": "replace", "path": "/kind", "value": "DataMigrate"}],
)

test_parallel_migration_with_its_keys_is_admitted if {
	d := validating.decision with input as migrate_input({"parallelism": 4, "parallelOptions": {"sshSecretName": "migrate-keys", "sshPort": "2222", "sshReadyTimeoutSeconds": "60"}})
	count(d.deny) == 0
	count(d.warnings) == 0
}

test_parallel_migration_needs_the_keys if {
	d := validating.decision with input as migrate_input({"parallelism": 4})
	d.deny == {{"rule": "operation-parallelism", "message": "spec.parallelOptions.sshSecretName: required when spec.parallelism is above 1 (4): the Secret holding the workers' ssh key pair (keys ssh-privatekey and ssh-publickey)"}}
}

test_parallel_options_that_cannot_be_honoured_are_denied if {
	d := validating.decision with input as migrate_input({"parallelism": 2, "parallelOptions": {"sshSecretName": "Keys_1", "sshPort": "22x", "sshReadyTimeoutSeconds": "0", "sshUser": "root"}})
	d.deny == {
		{"rule": "operation-parallelism", "message": "spec.parallelOptions.sshSecretName: \"Keys_1\" is not a Secret name (lower-case letters, digits, '-' and '.')"},
		{"rule": "operation-parallelism", "message": "spec.parallelOptions.sshPort: \"22x\" is not a port number (1 to 65535)"},
		{"rule": "operation-parallelism", "message": "spec.parallelOptions.sshReadyTimeoutSeconds: \"0\" is not a whole number of seconds (at least 1)"},
		{"rule": "operation-parallelism", "message": "spec.parallelOptions[\"sshUser\"]: unknown option; the options are sshPort, sshReadyTimeoutSeconds, sshSecretName"},
	}
}

test_a_port_out_of_range_is_denied if {
	d := validating.decision with input as migrate_input({"parallelism": 2, "parallelOptions": {"sshSecretName": "keys", "sshPort": "65536"}})
	rules(d) == {"operation-parallelism"}
}

test_unused_parallel_options_are_warned_about if {
	d := validating.decision with input as migrate_input({"parallelism": 1, "parallelOptions": {"sshSecretName": "keys"}})
	count(d.deny) == 0
	d.warnings == {"spec.parallelOptions: unused, as spec.parallelism is 1 (the migration runs in one pod)"}
}

test_one_worker_is_admitted if {
	d := validating.decision with input as migrate_input({"parallelism": 1})
	count(d.deny) == 0
	count(d.warnings) == 0
}

test_a_dataload_has_no_parallelism_rule if {
	d := validating.decision with input as load_input("CREATE", {"namespace": "team-a", "name": "imagenet"}, {"spec": {"parallelism": 4}})
	not "operation-parallelism" in rules(d)
}
