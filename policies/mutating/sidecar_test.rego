package sluice.mutating_test

import rego.v1

import data.sluice.mutating

test_serverless_pod_gets_native_sidecar_and_rewrite if {
	d := mutating.decision with input as input_for(serverless_pod, one_volume(bound("imagenet")))
	d.sidecars == {{
		"volume": "data", "dataset": "team-a/imagenet",
		"mountPath": "/runtime-mnt/juicefs/team-a/imagenet/juicefs-fuse",
		"mode": "native", "unprivileged": false, "readinessGate": true,
		"env": set(), "resources": {"limits": {}, "requests": {}},
		"uniqueHostPath": false, "dropVolumes": ["cache-dir"], "exitWithApps": false,
	}}
	d.volumeRewrites == {{"volume": "data", "hostPath": "/runtime-mnt/juicefs/team-a/imagenet/juicefs-fuse"}}
	d.labels == {"done.sidecar.fluid.io/inject": "true"}
	d.affinity == {"required": set(), "requiredTerms": set(), "preferred": set()}
}

# Audit N2: the sub-path never goes into the hostPath, which the container
# runtime resolves following symbolic links; it goes to the app mounts'
# subPath, which the kubelet resolves refusing links out of the volume.
test_sub_path_is_kept_out_of_the_host_path if {
	ds := object.union(bound("imagenet"), {"volume": object.union(bound("imagenet").volume, {"subPath": "/train/2024/"})})
	d := mutating.decision with input as input_for(serverless_pod, one_volume(ds))
	d.volumeRewrites == {{"volume": "data", "hostPath": "/runtime-mnt/juicefs/team-a/imagenet/juicefs-fuse", "subPath": "train/2024"}}
}

test_sub_path_of_only_slashes_is_none if {
	ds := object.union(bound("imagenet"), {"volume": object.union(bound("imagenet").volume, {"subPath": "/"})})
	d := mutating.decision with input as input_for(serverless_pod, one_volume(ds))
	d.volumeRewrites == {{"volume": "data", "hostPath": "/runtime-mnt/juicefs/team-a/imagenet/juicefs-fuse"}}
}

test_sub_path_without_readiness_gate_warns if {
	ds := object.union(bound("imagenet"), {"volume": object.union(bound("imagenet").volume, {"subPath": "train"})})
	p := pod({"serverless.fluid.io/inject": "true", "fuse.sidecar.poststart.fluid.io/inject": "false"}, {})
	d := mutating.decision with input as input_for(p, one_volume(ds))
	some w in d.warnings
	contains(w, `volume "data" of dataset team-a/imagenet is mounted at its sub-path "train"`)
	not_warned_with_gate := mutating.decision with input as input_for(serverless_pod, one_volume(ds))
	every w2 in not_warned_with_gate.warnings { not contains(w2, "sub-path") }
	held := pod({"serverless.fluid.io/inject": "true", "fuse.sidecar.poststart.fluid.io/inject": "false", "app.poststart.fluid.io/inject": "true"}, {})
	held_d := mutating.decision with input as input_for(held, one_volume(ds))
	every w3 in held_d.warnings { not contains(w3, "sub-path") }
}

test_container_mode_on_clusters_without_native_sidecars if {
	inp := json.patch(input_for(serverless_pod, one_volume(bound("imagenet"))), [{"op": "replace", "path": "/cluster/nativeSidecars", "value": false}])
	d := mutating.decision with input as inp
	only(d.sidecars).mode == "container"
}

test_mode_forced_by_policy_data if {
	d := mutating.decision with input as input_for(serverless_pod, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.sidecar.mode as "container"
	only(d.sidecars).mode == "container"
}

test_unprivileged_and_no_readiness_gate_labels if {
	p := pod({"serverless.fluid.io/inject": "true", "unprivileged.sidecar.fluid.io/inject": "true", "fuse.sidecar.poststart.fluid.io/inject": "false"}, {})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	only(d.sidecars).unprivileged == true
	only(d.sidecars).readinessGate == false
}

test_deprecated_sidecar_label_still_works if {
	p := pod({"fuse.sidecar.fluid.io/inject": "true"}, {})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	count(d.sidecars) == 1
}

test_runtime_without_fuse_template_is_denied if {
	ds := object.union(bound("imagenet"), {"runtime": object.union(bound("imagenet").runtime, {"fuse": false})})
	d := mutating.decision with input as input_for(serverless_pod, one_volume(ds))
	only(d.deny).rule == "sidecar-without-fuse"
}

# A Pod that opted out of injection gets no sidecar, so the sidecar's deny
# rules do not judge it (the webhook still evaluates the others for it).
test_opted_out_serverless_pod_is_no_sidecar_pod if {
	ds := object.union(bound("imagenet"), {"runtime": object.union(bound("imagenet").runtime, {"fuse": false})})
	p := pod({"serverless.fluid.io/inject": "true", "fluid.io/enable-injection": "false"}, {"serverless.fluid.io/platform": "nowhere"})
	d := mutating.decision with input as input_for(p, one_volume(ds))
	d.deny == set()
	d.sidecars == set()
}

test_serverless_pod_without_datasets_is_untouched if {
	d := mutating.decision with input as input_for(serverless_pod, [])
	d.sidecars == set()
	d.labels == {}
}

test_env_and_resources_from_policy_data if {
	d := mutating.decision with input as input_for(serverless_pod, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.sidecar.env as {"HTTPS_PROXY": "http://proxy:3128"}
		with data.sluice.config.mutating.sidecar.resources as {"limits": {"memory": "2Gi"}, "requests": {}}
	only(d.sidecars).env == {{"name": "HTTPS_PROXY", "value": "http://proxy:3128"}}
	only(d.sidecars).resources == {"limits": {"memory": "2Gi"}, "requests": {}}
}

test_env_and_resources_only_for_sidecars if {
	d := mutating.decision with input as input_for(serverful_pod, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.sidecar.env as {"HTTPS_PROXY": "http://proxy:3128"}
	d.sidecars == set()
}

test_random_suffix_annotation_asks_for_a_unique_host_path if {
	p := pod({"serverless.fluid.io/inject": "true"}, {"default.fuse-sidecar.fluid.io/host-mount-path-mode": "random-suffix"})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	only(d.sidecars).uniqueHostPath == true
	d.warnings == set()
}

test_unknown_host_mount_path_mode_warns if {
	p := pod({"serverless.fluid.io/inject": "true"}, {"default.fuse-sidecar.fluid.io/host-mount-path-mode": "random"})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	only(d.sidecars).uniqueHostPath == false
	d.warnings == {"default.fuse-sidecar.fluid.io/host-mount-path-mode: unknown mode \"random\" (the one mode is random-suffix); the sidecars share their runtime's host mount directory"}
}

test_random_suffix_without_sidecar_warns if {
	p := pod({"fuse.serverful.fluid.io/inject": "true"}, {"default.fuse-sidecar.fluid.io/host-mount-path-mode": "random-suffix"})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	contains(only(d.warnings), "the Pod gets no FUSE sidecar")
}

test_cache_dir_volumes_are_dropped_by_default if {
	ds := object.union(bound("imagenet"), {"runtime": object.union(bound("imagenet").runtime, {"fuseVolumes": ["thin-fuse-mount", "thin-cache-0-0", "thin-cache-1-0", "thin-config"]})})
	d := mutating.decision with input as input_for(serverless_pod, one_volume(ds))
	only(d.sidecars).dropVolumes == ["thin-cache-0-0", "thin-cache-1-0"]
}

test_cache_dir_label_keeps_cache_dir_volumes if {
	p := pod({"serverless.fluid.io/inject": "true", "cachedir.sidecar.fluid.io/inject": "true"}, {})
	d := mutating.decision with input as input_for(p, one_volume(bound("imagenet")))
	only(d.sidecars).dropVolumes == []
	d.warnings == set()
}

test_cache_dir_label_warns_when_the_template_has_no_cache_dir if {
	ds := object.union(bound("imagenet"), {"runtime": object.union(bound("imagenet").runtime, {"fuseVolumes": ["juicefs-fuse-mount", "fuse-device"]})})
	p := pod({"serverless.fluid.io/inject": "true", "cachedir.sidecar.fluid.io/inject": "true"}, {})
	d := mutating.decision with input as input_for(p, one_volume(ds))
	d.warnings == {"cachedir.sidecar.fluid.io/inject: the FUSE template of dataset team-a/imagenet has no cache-dir volume; the sidecar is the same with or without it"}
}

test_cache_dir_names_come_from_policy_data if {
	d := mutating.decision with input as input_for(serverless_pod, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.sidecar.cacheDirVolumes as ["fuse-"]
	only(d.sidecars).dropVolumes == ["fuse-device"]
}

job_pod(restart) := json.patch(serverless_pod, [{"op": "add", "path": "/spec/restartPolicy", "value": restart}])

test_container_sidecars_of_pods_that_end_exit_with_the_apps if {
	every restart in ["Never", "OnFailure"] {
		d := mutating.decision with input as input_for(job_pod(restart), one_volume(bound("imagenet")))
			with data.sluice.config.mutating.sidecar.mode as "container"
		only(d.sidecars).exitWithApps == true
	}
}

test_sidecars_of_pods_that_restart_always_do_not_exit if {
	d := mutating.decision with input as input_for(job_pod("Always"), one_volume(bound("imagenet")))
		with data.sluice.config.mutating.sidecar.mode as "container"
	only(d.sidecars).exitWithApps == false
	e := mutating.decision with input as input_for(serverless_pod, one_volume(bound("imagenet")))
		with data.sluice.config.mutating.sidecar.mode as "container"
	only(e.sidecars).exitWithApps == false
}

test_native_sidecars_end_by_themselves if {
	d := mutating.decision with input as input_for(job_pod("Never"), one_volume(bound("imagenet")))
	only(d.sidecars).mode == "native"
	only(d.sidecars).exitWithApps == false
}

test_reference_sidecar_warns_about_secrets_it_does_not_copy if {
	ref := object.union(bound("imagenet-ref"), {"reference": {
		"namespace": "team-b", "name": "imagenet", "subPath": "", "phase": "Bound", "fuseSecrets": ["jfs-secret"],
	}})
	d := mutating.decision with input as input_for(serverless_pod, one_volume(ref))
	count(d.deny) == 0
	some w in d.warnings
	w == `volume "data" uses reference dataset team-a/imagenet-ref: its FUSE sidecar (of Dataset team-b/imagenet) reads Secret(s) jfs-secret, which Sluice does not copy from namespace "team-b"; they must exist in namespace "team-a"`
	csi := mutating.decision with input as input_for(serverful_pod, one_volume(ref))
	count(csi.warnings) == 0
}
