# Shared inputs for the mutating policy tests.
package sluice.mutating_test

import rego.v1

dataset(name, phase) := {
	"namespace": "team-a",
	"name": name,
	"phase": phase,
	"runtime": {
		"type": "juicefs",
		"name": name,
		"namespace": "team-a",
		"fuse": true,
		"fuseNodeSelector": {},
		"fuseVolumes": ["juicefs-fuse-mount", "cache-dir", "fuse-device"],
		"cacheAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
			{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]},
			{"key": "topology.kubernetes.io/region", "operator": "In", "values": ["region-1"]},
		]}]}},
	},
	"labels": {
		"cache": sprintf("fluid.io/s-team-a-%s", [name]),
		"fuse": sprintf("fluid.io/f-team-a-%s", [name]),
		"sched": sprintf("fluid.io/dataset.%s.sched", [name]),
	},
	"localities": {
		"fluid.io/node": [{"key": sprintf("fluid.io/s-team-a-%s", [name]), "operator": "In", "values": ["true"]}],
		"fluid.io/fuse": [{"key": sprintf("fluid.io/f-team-a-%s", [name]), "operator": "In", "values": ["true"]}],
		"topology.kubernetes.io/zone": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]}],
		"topology.kubernetes.io/region": [{"key": "topology.kubernetes.io/region", "operator": "In", "values": ["region-1"]}],
	},
	"volume": {"fluidPath": sprintf("/runtime-mnt/juicefs/team-a/%s/juicefs-fuse", [name]), "subPath": "", "mountType": "fuse.juicefs"},
}

bound(name) := dataset(name, "Bound")

pod(labels, annotations) := {
	"metadata": {"name": "app", "namespace": "team-a", "labels": labels, "annotations": annotations},
	"spec": {"containers": [{"name": "app", "image": "busybox", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]},
}

input_for(p, volumes) := {
	"request": {"operation": "CREATE", "namespace": "team-a", "user": {"username": "alice"}},
	"pod": p,
	"datasetVolumes": volumes,
	"cluster": {"nativeSidecars": true},
}

serverful_pod := pod({"fuse.serverful.fluid.io/inject": "true"}, {})

serverless_pod := pod({"serverless.fluid.io/inject": "true"}, {})

plain_pod := pod({}, {})

one_volume(ds) := [{"volume": "data", "claim": ds.name, "dataset": ds}]

# only(s) is the single element of the set s (undefined unless it has one).
only(s) := x if {
	count(s) == 1
	some x in s
}
