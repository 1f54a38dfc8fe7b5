# Parallel migration: spec.parallelism and spec.parallelOptions of a
# DataMigrate.
#
# Fluid runs a parallel DataMigrate as a StatefulSet of workers driven over
# ssh; Sluice runs every operation as one Job, so it denies these fields at
# admission rather than accept them and copy with one worker (the JuiceFS
# engine would also refuse them, but only once the operation runs).
package sluice.validating

import rego.v1

deny contains deny_at("operation-parallelism", "spec.parallelism", msg) if {
	is_operation
	input.kind == "DataMigrate"
	obj.spec.parallelism > 1
	msg := sprintf("%v workers: parallel migration is not supported yet; use 1 and the copy's own threads (e.g. spec.options.threads for juicefs sync)", [obj.spec.parallelism])
}

deny contains deny_at("operation-parallelism", "spec.parallelOptions", "parallel migration is not supported yet; remove it") if {
	is_operation
	input.kind == "DataMigrate"
	count(object.get(obj.spec, "parallelOptions", {})) > 0
}
