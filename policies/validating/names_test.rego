package sluice.validating_test

import rego.v1

import data.sluice.validating

test_runtime_names_must_be_dns1035 if {
	bad := validating.decision with input as runtime_input("CREATE", "My.Runtime", [], {})
	rules(bad) == {"name-dns1035"}
	ok := validating.decision with input as runtime_input("CREATE", "my-runtime", [], {})
	count(ok.deny) == 0
}

test_second_runtime_kind_with_same_name_is_denied if {
	d := validating.decision with input as runtime_input("CREATE", "demo", [], {"sameNameRuntimes": ["AlluxioRuntime"]})
	rules(d) == {"runtime-name-conflict"}
}

dataset_input(op, mounts, extra) := {
	"request": req(op), "kind": "Dataset",
	"object": {"metadata": {"name": "ds", "namespace": "team-a"}, "spec": {}},
	"oldObject": null,
	"facts": object.union({"mounts": mounts, "mountsChanged": false, "replicas": 0, "bound": false}, extra),
}

test_mounts_cannot_change_while_held if {
	d := validating.decision with input as dataset_input("UPDATE", [], {"mountsChanged": true, "holders": ["DataLoad warm"]})
	some x in d.deny
	x.message == "spec.mounts: cannot change while DataLoad warm holds the Dataset"
	free := validating.decision with input as dataset_input("UPDATE", [], {"mountsChanged": true})
	count(free.deny) == 0
}

test_mount_edits_the_engine_cannot_apply_are_denied_naming_the_field if {
	edit := {"path": "spec.mounts[0].mountPoint", "support": "refused", "message": "the mount point cannot change"}
	d := validating.decision with input as dataset_input("UPDATE", [], {"mountsChanged": true, "mountEdits": [edit]})
	d.deny == {{"rule": "mount-edit", "message": "spec.mounts[0].mountPoint: the mount point cannot change"}}
	free := validating.decision with input as dataset_input("UPDATE", [], {"mountsChanged": true})
	count(free.deny) == 0
}

test_mount_schemes_restricted_per_namespace if {
	inp := dataset_input("CREATE", [{"mountPoint": "hdfs://nn/p", "scheme": "hdfs"}, {"mountPoint": "s3://b", "scheme": "s3"}], {})
	d := validating.decision with input as inp with data.sluice.config.validating.mountSchemes as {"*": ["s3", "oss"]}
	some x in d.deny
	x.message == "spec.mounts[0].mountPoint: scheme \"hdfs\" is not allowed in namespace \"team-a\" (allowed: oss, s3)"
	count(d.deny) == 1
	ns := validating.decision with input as inp with data.sluice.config.validating.mountSchemes as {"*": ["s3"], "team-a": ["s3", "hdfs"]}
	count(ns.deny) == 0
	unrestricted := validating.decision with input as inp
	count(unrestricted.deny) == 0
}
