# Caches that engine options define (audit N5): a JuiceFS cache-dir option
# is a host path judged by tieredstore-path at the option's field, and a
# cache-size above the tier's counts in the namespace's cache budget
# (facts.optionCaches), the denial naming the option.
package sluice.validating_test

import rego.v1

import data.sluice.validating

worker_cache_dir := "spec.worker.options[\"cache-dir\"]"

worker_cache_size := "spec.worker.options[\"cache-size\"]"

test_option_cache_dir_is_judged_as_a_host_path if {
	d := denials("JuiceFSRuntime", {"tierPaths": [
		tier("spec.tieredstore.levels[0].path", "/dev/shm"),
		tier(worker_cache_dir, "/var/lib/kubelet"),
	]})
	some x in d
	x.rule == "tieredstore-path"
	startswith(x.message, sprintf("%s: host path \"/var/lib/kubelet\" is not under an allowed prefix", [worker_cache_dir]))
	count(d) == 1
	count(denials("JuiceFSRuntime", {"tierPaths": [tier(worker_cache_dir, "/mnt/jfs")]})) == 0
	rules_of(denials("JuiceFSRuntime", {"tierPaths": [tier(worker_cache_dir, "relative/dir")]})) == {"tieredstore-path"}
}

test_option_cache_counts_in_the_budget_naming_the_option if {
	caches := {"optionCaches": [{"path": worker_cache_size, "medium": "MEM", "bytes": 60 * gi}]}
	inp := runtime_input("CREATE", "demo", [level(0, "MEM", ["/dev/shm"], gi)], caches)
	d := validating.decision with input as inp with data.sluice.config.validating.budgets as {"team-a": {"MEM": "16Gi"}}
	some x in d.deny
	x.rule == "namespace-cache-budget"
	startswith(x.message, sprintf("%s: namespace \"team-a\" may use 16Gi of MEM cache", [worker_cache_size]))
	contains(x.message, sprintf("this one would add %d (%d of them through %s)", [62 * gi, 60 * gi, worker_cache_size]))

	# Within the budget: admitted.
	ok := validating.decision with input as inp with data.sluice.config.validating.budgets as {"team-a": {"MEM": "64Gi"}}
	count(ok.deny) == 0

	# Another medium's option cache does not count in MEM's budget.
	other := runtime_input("CREATE", "demo", [level(0, "MEM", ["/dev/shm"], gi)], {"optionCaches": [{"path": worker_cache_size, "medium": "SSD", "bytes": 60 * gi}]})
	mem_only := validating.decision with input as other with data.sluice.config.validating.budgets as {"team-a": {"MEM": "16Gi"}}
	count(mem_only.deny) == 0
}

test_tier_only_budget_denial_still_names_the_tieredstore if {
	inp := runtime_input("CREATE", "demo", [level(0, "MEM", ["/dev/shm"], 16 * gi)], {})
	d := validating.decision with input as inp with data.sluice.config.validating.budgets as {"team-a": {"MEM": "16Gi"}}
	some x in d.deny
	x.rule == "namespace-cache-budget"
	startswith(x.message, "spec.tieredstore: namespace \"team-a\" may use 16Gi of MEM cache")
	endswith(x.message, "this one would add 34359738368")
}
