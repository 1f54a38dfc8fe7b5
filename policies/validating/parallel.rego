# Parallel migration: spec.parallelism and spec.parallelOptions of a
# DataMigrate.
#
# With parallelism n above 1 the operation's pod drives n-1 workers over
# ssh (juicefs sync's cluster mode), with the key pair of the Secret that
# parallelOptions.sshSecretName names; sshPort (default 22) and
# sshReadyTimeoutSeconds (default 180) are optional, as in Fluid. Anything
# the controller could not honour is denied here, naming the field, rather
# than failing the operation once it runs; options that a migration in one
# pod does not use are admitted with a warning.
package sluice.validating

import rego.v1

parallel_options := {"sshSecretName", "sshPort", "sshReadyTimeoutSeconds"}

migrate_options := object.get(obj.spec, "parallelOptions", {})

parallel_migration if {
	is_operation
	input.kind == "DataMigrate"
	object.get(obj.spec, "parallelism", 1) > 1
}

# METADATA
# description: "A parallel DataMigrate must name its SSH Secret, and its parallelOptions must be known and valid."
deny contains deny_at("operation-parallelism", "spec.parallelOptions.sshSecretName", msg) if {
	parallel_migration
	object.get(migrate_options, "sshSecretName", "") == ""
	msg := sprintf("required when spec.parallelism is above 1 (%v): the Secret holding the workers' ssh key pair (keys ssh-privatekey and ssh-publickey)", [obj.spec.parallelism])
}

deny contains deny_at("operation-parallelism", "spec.parallelOptions.sshSecretName", msg) if {
	parallel_migration
	name := object.get(migrate_options, "sshSecretName", "")
	name != ""
	not secret_name(name)
	msg := sprintf("%q is not a Secret name (lower-case letters, digits, '-' and '.')", [name])
}

deny contains deny_at("operation-parallelism", sprintf("spec.parallelOptions[%q]", [key]), msg) if {
	parallel_migration
	some key, _ in migrate_options
	not key in parallel_options
	msg := sprintf("unknown option; the options are %s", [concat(", ", sort(parallel_options))])
}

deny contains deny_at("operation-parallelism", "spec.parallelOptions.sshPort", sprintf("%q is not a port number (1 to 65535)", [port])) if {
	parallel_migration
	port := migrate_options.sshPort
	not whole_number_in(port, 1, 65535)
}

deny contains deny_at("operation-parallelism", "spec.parallelOptions.sshReadyTimeoutSeconds", sprintf("%q is not a whole number of seconds (at least 1)", [secs])) if {
	parallel_migration
	secs := migrate_options.sshReadyTimeoutSeconds
	not whole_number_in(secs, 1, 2147483647)
}

warnings contains "spec.parallelOptions: unused, as spec.parallelism is 1 (the migration runs in one pod)" if {
	is_operation
	input.kind == "DataMigrate"
	object.get(obj.spec, "parallelism", 1) <= 1
	count(migrate_options) > 0
}

secret_name(s) if {
	count(s) <= 253
	regex.match(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`, s)
}

whole_number_in(s, low, high) if {
	regex.match(`^[0-9]{1,10}$`, s)
	n := to_number(s)
	n >= low
	n <= high
}
