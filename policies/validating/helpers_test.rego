# Shared inputs for the validating policy tests.
package sluice.validating_test

import rego.v1

req(op) := {"operation": op, "namespace": "team-a", "dryRun": false, "user": {"username": "alice", "groups": []}}

runtime_input(op, name, levels, extra) := object.union(
	{
		"request": req(op), "kind": "JuiceFSRuntime",
		"object": {"metadata": {"name": name, "namespace": "team-a"}, "spec": {}},
		"oldObject": null,
		"facts": {"levels": levels, "replicas": 2, "bound": false, "mountsChanged": false},
	},
	{"facts": object.union({"levels": levels, "replicas": 2, "bound": false, "mountsChanged": false}, extra)},
)

level(i, medium, paths, bytes) := {
	"index": i, "medium": medium, "paths": paths, "quotaBytes": bytes, "quotaListBytes": [],
	"quotaField": "", "quotaError": "", "high": "", "low": "",
}

rules(d) := {x.rule | some x in d.deny}
