# When an operation runs: spec.policy and spec.schedule.
#
# Once and Cron are supported; OnEvent is denied rather than accepted and
# ignored. A Cron operation's schedule must be one a CronJob accepts (the
# webhook parses it as batch/v1 validation does: facts.schedule).
package sluice.validating

import rego.v1

# METADATA
# description: "A data operation's policy may not be OnEvent (not supported); use Once, or Cron with spec.schedule."
deny contains deny_at("operation-policy", "spec.policy", "OnEvent is not supported yet; use Once, or Cron with spec.schedule") if {
	is_operation
	obj.spec.policy == "OnEvent"
}

# METADATA
# description: "A data operation's spec.schedule must be a cron schedule."
deny contains deny_at("operation-schedule", "spec.schedule", msg) if {
	is_operation
	facts.schedule.error != ""
	msg := sprintf("%q is not a cron schedule: %s", [object.get(obj.spec, "schedule", ""), facts.schedule.error])
}
