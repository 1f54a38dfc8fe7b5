package sluice.validating_test

import rego.v1

import data.sluice.validating

gi := 1073741824

test_ordered_levels_pass if {
	d := validating.decision with input as runtime_input("CREATE", "demo", [level(0, "MEM", ["/dev/shm"], gi), level(1, "SSD", ["/mnt/a"], 10 * gi)], {})
	count(d.deny) == 0
}

test_out_of_order_levels_are_denied if {
	d := validating.decision with input as runtime_input("CREATE", "demo", [level(0, "HDD", ["/mnt/h"], gi), level(1, "SSD", ["/mnt/a"], gi)], {})
	rules(d) == {"tieredstore-order"}
}

test_medium_twice_is_denied if {
	d := validating.decision with input as runtime_input("CREATE", "demo", [level(0, "SSD", ["/a"], gi), level(1, "SSD", ["/b"], gi)], {})
	"tieredstore-order" in rules(d)
}

test_duplicate_path_across_levels_is_denied if {
	d := validating.decision with input as runtime_input("CREATE", "demo", [level(0, "MEM", ["/x"], gi), level(1, "SSD", ["/x"], gi)], {})
	rules(d) == {"tieredstore-duplicate-path"}
}

test_zero_quota_is_denied if {
	d := validating.decision with input as runtime_input("CREATE", "demo", [level(0, "MEM", ["/x"], 0)], {})
	rules(d) == {"tieredstore-quota"}
}

test_unparsable_quota_list_is_denied_with_its_path if {
	l := object.union(level(0, "SSD", ["/a"], 0), {"quotaField": "quotaList[0]", "quotaError": "\"ten\" is not a quantity"})
	d := validating.decision with input as runtime_input("CREATE", "demo", [l], {})
	some x in d.deny
	x.message == "spec.tieredstore.levels[0].quotaList[0]: \"ten\" is not a quantity"
}

test_quota_list_count_must_match_paths if {
	l := object.union(level(0, "SSD", ["/a", "/b"], 0), {"quotaListBytes": [gi]})
	d := validating.decision with input as runtime_input("CREATE", "demo", [l], {})
	rules(d) == {"tieredstore-quota-list"}
}

test_watermarks if {
	bad := object.union(level(0, "SSD", ["/a"], gi), {"high": "0.5", "low": "0.7"})
	d := validating.decision with input as runtime_input("CREATE", "demo", [bad], {})
	rules(d) == {"tieredstore-watermarks"}
	good := object.union(level(0, "SSD", ["/a"], gi), {"high": "0.95", "low": "0.7"})
	ok := validating.decision with input as runtime_input("CREATE", "demo", [good], {})
	count(ok.deny) == 0
}

test_mem_over_worker_limit_is_denied if {
	d := validating.decision with input as runtime_input("CREATE", "demo", [level(0, "MEM", ["/dev/shm"], 8 * gi)], {"workerMemoryLimitBytes": 4 * gi})
	rules(d) == {"tieredstore-mem-limit"}
}

test_namespace_budget_counts_other_runtimes_and_replicas if {
	inp := runtime_input("CREATE", "demo", [level(0, "MEM", ["/dev/shm"], 8 * gi)], {"namespaceUsage": {"MEM": 50 * gi}})
	d := validating.decision with input as inp with data.sluice.config.validating.budgets as {"team-a": {"MEM": "64Gi"}}
	some x in d.deny
	x.rule == "namespace-cache-budget"
	contains(x.message, "may use 64Gi of MEM cache")
	ok := validating.decision with input as inp with data.sluice.config.validating.budgets as {"team-a": {"MEM": "128Gi"}}
	count(ok.deny) == 0
}

test_bound_runtime_cannot_change_medium if {
	inp := runtime_input("UPDATE", "demo", [level(0, "SSD", ["/mnt/a"], gi)], {"bound": true, "oldLevels": [level(0, "MEM", ["/dev/shm"], gi)]})
	d := validating.decision with input as inp
	rules(d) == {"runtime-tieredstore-immutable"}
	unbound := validating.decision with input as runtime_input("UPDATE", "demo", [level(0, "SSD", ["/mnt/a"], gi)], {"oldLevels": [level(0, "MEM", ["/dev/shm"], gi)]})
	count(unbound.deny) == 0
}
