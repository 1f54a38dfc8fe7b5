package sluice.mutating_test

import rego.v1

import data.sluice.mutating

app_wait_pod(extra_containers) := {
	"metadata": {"name": "app", "namespace": "team-a", "labels": {"serverless.fluid.io/inject": "true", "app.poststart.fluid.io/inject": "true"}, "annotations": {}},
	"spec": {"containers": array.concat(
		[
			{"name": "app", "image": "busybox", "volumeMounts": [{"name": "data", "mountPath": "/data"}, {"name": "scratch", "mountPath": "/tmp"}, {"name": "data", "mountPath": "/again"}]},
			{"name": "logger", "image": "busybox", "volumeMounts": [{"name": "scratch", "mountPath": "/tmp"}]},
		],
		extra_containers,
	)},
}

test_app_containers_wait_for_their_dataset_mounts if {
	d := mutating.decision with input as input_for(app_wait_pod([]), one_volume(bound("imagenet")))
	d.appPostStart == {{"container": "app", "mountPaths": ["/again", "/data"], "timeoutSeconds": 120}}
	d.warnings == set()
}

test_app_wait_timeout_from_policy_data if {
	d := mutating.decision with input as input_for(app_wait_pod([]), one_volume(bound("imagenet")))
		with data.sluice.config.mutating.appPostStart.timeoutSeconds as 30
	only(d.appPostStart).timeoutSeconds == 30
}

test_no_app_wait_without_the_label if {
	d := mutating.decision with input as input_for(serverless_pod, one_volume(bound("imagenet")))
	d.appPostStart == set()
}

test_a_container_with_its_own_post_start_keeps_it_with_a_warning if {
	own := {"name": "warm", "image": "busybox", "volumeMounts": [{"name": "data", "mountPath": "/d"}], "lifecycle": {"postStart": {"exec": {"command": ["warm-up"]}}}}
	d := mutating.decision with input as input_for(app_wait_pod([own]), one_volume(bound("imagenet")))
	{a.container | some a in d.appPostStart} == {"app"}
	d.warnings == {"app.poststart.fluid.io/inject: container \"warm\" has a postStart hook of its own, which is kept; it does not wait for the dataset mounts"}
}

test_app_wait_label_without_sidecar_warns if {
	p := pod({"fuse.serverful.fluid.io/inject": "true", "app.poststart.fluid.io/inject": "true"}, {})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	d.appPostStart == set()
	contains(only(d.warnings), "no dataset volume of the Pod is served by a FUSE sidecar")
}
