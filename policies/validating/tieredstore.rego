# TieredStore and quota rules for runtimes.
#
# The webhook parses quantities and gives the levels as facts: per level its
# index, medium, paths, quotaBytes (or quotaError), quotaListBytes, high and low.
package sluice.validating

import rego.v1

runtime_kinds := {"AlluxioRuntime", "JuiceFSRuntime", "JindoRuntime", "ThinRuntime"}

is_runtime if input.kind in runtime_kinds

levels := object.get(facts, "levels", [])

level_path(l) := sprintf("spec.tieredstore.levels[%d]", [l.index])

# METADATA
# description: "Each tieredstore level's quota or quotaList must be a quantity greater than 0."
deny contains deny_at("tieredstore-quota", sprintf("%s.%s", [level_path(l), l.quotaField]), l.quotaError) if {
	is_runtime
	some l in levels
	l.quotaError != ""
}

deny contains deny_at("tieredstore-quota", sprintf("%s.quota", [level_path(l)]), sprintf("must be greater than 0, got %v bytes", [l.quotaBytes])) if {
	is_runtime
	some l in levels
	l.quotaError == ""
	count(l.quotaListBytes) == 0
	l.quotaBytes <= 0
}

deny contains deny_at("tieredstore-quota", sprintf("%s.quotaList[%d]", [level_path(l), i]), "must be greater than 0") if {
	is_runtime
	some l in levels
	some i, q in l.quotaListBytes
	q <= 0
}

# METADATA
# description: "A tieredstore level's quotaList gives one quota per path."
deny contains deny_at("tieredstore-quota-list", sprintf("%s.quotaList", [level_path(l)]), msg) if {
	is_runtime
	some l in levels
	count(l.quotaListBytes) > 0
	count(l.quotaListBytes) != count(l.paths)
	msg := sprintf("has %d entries for %d paths; give one quota per path", [count(l.quotaListBytes), count(l.paths)])
}

# METADATA
# description: "A tieredstore level's watermarks are numbers in (0,1], high above low."
deny contains deny_at("tieredstore-watermarks", sprintf("%s.%s", [level_path(l), field]), "must be a number in (0,1]") if {
	is_runtime
	some l in levels
	some field in {"high", "low"}
	v := l[field]
	v != ""
	not valid_ratio(v)
}

deny contains deny_at("tieredstore-watermarks", level_path(l), sprintf("high (%s) must be greater than low (%s)", [l.high, l.low])) if {
	is_runtime
	some l in levels
	valid_ratio(l.high)
	valid_ratio(l.low)
	to_number(l.high) <= to_number(l.low)
}

valid_ratio(s) if {
	regex.match(`^([0-9]+([.][0-9]*)?|[.][0-9]+)$`, s)
	to_number(s) > 0
	to_number(s) <= 1
}

# METADATA
# description: "A path is used by one tieredstore level only."
deny contains deny_at("tieredstore-duplicate-path", sprintf("%s.path", [level_path(l)]), sprintf("path %q is used more than once in the runtime's tieredstore", [p])) if {
	is_runtime
	some l in levels
	some p in l.paths
	count([1 | some m in levels; some q in m.paths; q == p]) > 1
}

medium_rank := {"MEM": 0, "SSD": 1, "HDD": 2}

# METADATA
# description: "Tieredstore levels have distinct media, fastest first (MEM, SSD, HDD)."
deny contains deny_at("tieredstore-order", sprintf("%s.mediumtype", [level_path(l)]), sprintf("medium %s is used by more than one level", [l.medium])) if {
	is_runtime
	some l in levels
	count([1 | some m in levels; m.medium == l.medium]) > 1
}

deny contains deny_at("tieredstore-order", sprintf("%s.mediumtype", [level_path(b)]), sprintf("levels go fastest first (MEM, SSD, HDD): %s must not follow %s", [b.medium, a.medium])) if {
	is_runtime
	some i, a in levels
	some j, b in levels
	i < j
	medium_rank[a.medium] > medium_rank[b.medium]
}

# METADATA
# description: "The MEM tier may not exceed the worker's memory limit."
deny contains deny_at("tieredstore-mem-limit", sprintf("%s.quota", [level_path(l)]), msg) if {
	is_runtime
	limit := facts.workerMemoryLimitBytes
	limit > 0
	some l in levels
	l.medium == "MEM"
	total := level_bytes(l)
	total > limit
	msg := sprintf("the MEM tier (%d bytes) exceeds the worker memory limit (%d bytes)", [total, limit])
}

level_bytes(l) := sum(l.quotaListBytes) if count(l.quotaListBytes) > 0

level_bytes(l) := l.quotaBytes if count(l.quotaListBytes) == 0

# Namespace cache budgets: usage of the namespace's other runtimes plus this
# one (quota x replicas, plus what caches its engine options define add:
# facts.optionCaches, e.g. a JuiceFS cache-size above the tier's quota)
# must stay within validating.budgets[namespace]. The denial names the
# options when they add to the medium, else spec.tieredstore.
option_caches := object.get(facts, "optionCaches", [])

option_bytes(medium) := sum([c.bytes | some c in option_caches; c.medium == medium])

budget_path(medium) := concat(", ", sort({c.path | some c in option_caches; c.medium == medium; c.bytes > 0})) if option_bytes(medium) > 0

budget_path(medium) := "spec.tieredstore" if option_bytes(medium) == 0

budget_options_note(medium) := sprintf(" (%d of them through %s)", [option_bytes(medium), budget_path(medium)]) if option_bytes(medium) > 0

budget_options_note(medium) := "" if option_bytes(medium) == 0

# METADATA
# description: "A namespace's runtimes may cache no more of each medium than its budget (validating.budgets)."
deny contains deny_at("namespace-cache-budget", budget_path(medium), msg) if {
	is_runtime
	budget := config.budgets[obj.metadata.namespace]
	some medium, limit_text in budget
	limit := units.parse_bytes(limit_text)
	mine := sum([b | some l in levels; l.medium == medium; b := level_bytes(l) * facts.replicas]) + option_bytes(medium)
	others := object.get(object.get(facts, "namespaceUsage", {}), medium, 0)
	mine + others > limit
	msg := sprintf("namespace %q may use %s of %s cache; its other runtimes use %d bytes and this one would add %d%s", [obj.metadata.namespace, limit_text, medium, others, mine, budget_options_note(medium)])
}

# A bound runtime cannot change a level's medium or paths: the cache on the
# nodes would no longer match the spec.
# METADATA
# description: "A bound runtime may not change a level's medium or paths."
deny contains deny_at("runtime-tieredstore-immutable", sprintf("%s", [level_path(l)]), msg) if {
	is_runtime
	input.request.operation == "UPDATE"
	facts.bound
	some l in levels
	some o in object.get(facts, "oldLevels", [])
	o.index == l.index
	[o.medium, concat(",", o.paths)] != [l.medium, concat(",", l.paths)]
	msg := sprintf("changing the medium or paths of a bound runtime's level is not supported (was %s %v, now %s %v); delete and recreate the runtime", [o.medium, o.paths, l.medium, l.paths])
}
