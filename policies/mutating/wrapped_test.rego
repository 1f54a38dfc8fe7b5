package sluice.mutating_test

import rego.v1

import data.sluice.mutating

thin(name) := object.union(bound(name), {
	"runtime": {"type": "thin", "name": name, "namespace": "team-a", "fuse": true, "fuseNodeSelector": {}, "fuseVolumes": []},
	"volume": {"fluidPath": sprintf("/runtime-mnt/thin/team-a/%s/thin-fuse", [name]), "subPath": "", "mountType": "nfs"},
})

wrapped_volume(ds) := [{"volume": "data", "claim": "nas-data", "wrapped": true, "dataset": ds}]

test_a_serverless_pod_of_a_wrapped_pvc_gets_the_datasets_fuse if {
	d := mutating.decision with input as input_for(serverless_pod, wrapped_volume(thin("nas")))
	d.volumeRewrites == {{"volume": "data", "hostPath": "/runtime-mnt/thin/team-a/nas/thin-fuse"}}
	only(d.sidecars).dataset == "team-a/nas"
	d.warnings == set()
	d.annotations == {"fluid.io/datasets-in-use": "nas"}
}

test_a_serverful_pod_of_a_wrapped_pvc_gets_the_datasets_affinity_and_is_told_it_reads_the_pvc if {
	d := mutating.decision with input as input_for(serverful_pod, wrapped_volume(thin("nas")))
	count(d.affinity.preferred) > 0
	d.volumeRewrites == set()
	d.warnings == {`volume "data" mounts PVC "nas-data", which dataset team-a/nas wraps: the Pod reads the PVC itself, not through the dataset's FUSE; label the Pod serverless.fluid.io/inject=true for a FUSE sidecar of the dataset, or mount the dataset's PVC "nas"`}
}

test_a_datasets_own_pvc_is_not_told_anything if {
	d := mutating.decision with input as input_for(serverful_pod, [{"volume": "data", "claim": "nas", "wrapped": false, "dataset": thin("nas")}])
	d.warnings == set()
}
