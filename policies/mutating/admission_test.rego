package sluice.mutating_test

import rego.v1

import data.sluice.mutating

test_unbound_dataset_is_denied_naming_dataset_and_rule if {
	d := mutating.decision with input as input_for(serverful_pod, one_volume(dataset("imagenet", "NotBound")))
	d.deny == {{"rule": "dataset-not-bound", "message": "volume \"data\" uses dataset team-a/imagenet, which is not Bound (phase NotBound)"}}
}

test_dataset_without_phase_is_denied_as_none if {
	d := mutating.decision with input as input_for(plain_pod, one_volume(dataset("imagenet", "")))
	only(d.deny).message == "volume \"data\" uses dataset team-a/imagenet, which is not Bound (phase None)"
}

test_skip_precheck_admits_unbound if {
	p := pod({}, {"sidecar.fluid.io/skip-precheck": "true"})
	d := mutating.decision with input as input_for(p, one_volume(dataset("imagenet", "NotBound")))
	d.deny == set()
}

test_bound_dataset_is_admitted if {
	d := mutating.decision with input as input_for(serverful_pod, one_volume(bound("imagenet")))
	d.deny == set()
}

# A bound dataset whose mounts are being changed, or whose runtime failed
# to apply its spec, is still served by its runtime.
test_updating_and_bound_failed_datasets_are_admitted if {
	updating := mutating.decision with input as input_for(serverful_pod, one_volume(dataset("imagenet", "Updating")))
	updating.deny == set()
	failed := mutating.decision with input as input_for(serverful_pod, one_volume(dataset("imagenet", "Failed")))
	failed.deny == set()
}

test_failed_dataset_never_bound_is_denied if {
	never := object.union(dataset("imagenet", "Failed"), {"runtime": {"name": "", "type": "", "namespace": ""}})
	d := mutating.decision with input as input_for(serverful_pod, one_volume(never))
	only(d.deny).message == "volume \"data\" uses dataset team-a/imagenet, which is not Bound (phase Failed)"
}

other_ns := object.union(bound("shared"), {"namespace": "data-team"})

test_cross_namespace_dataset_is_denied_by_default if {
	d := mutating.decision with input as input_for(plain_pod, one_volume(other_ns))
	only(d.deny).rule == "dataset-cross-namespace"
	contains(only(d.deny).message, "data-team/shared")
}

test_cross_namespace_dataset_allowed_by_policy_data if {
	d := mutating.decision with input as input_for(plain_pod, one_volume(other_ns))
		with data.sluice.config.mutating.crossNamespace.allow as [{"podNamespace": "team-a", "datasetNamespace": "data-team", "dataset": "*"}]
	d.deny == set()
}

test_cross_namespace_allow_rule_must_match_pod_namespace if {
	d := mutating.decision with input as input_for(plain_pod, one_volume(other_ns))
		with data.sluice.config.mutating.crossNamespace.allow as [{"podNamespace": "team-b", "datasetNamespace": "*", "dataset": "*"}]
	count(d.deny) == 1
}

reference(phase) := object.union(bound("imagenet-ref"), {"reference": {
	"namespace": "team-b", "name": "imagenet", "subPath": "train", "phase": phase, "fuseSecrets": [],
}})

test_reference_dataset_needs_its_referenced_dataset_bound if {
	d := mutating.decision with input as input_for(serverful_pod, one_volume(reference("NotBound")))
	some x in d.deny
	x.rule == "dataset-not-bound"
	x.message == `volume "data" uses reference dataset team-a/imagenet-ref, whose Dataset team-b/imagenet is not Bound (phase NotBound)`
	missing := mutating.decision with input as input_for(serverful_pod, one_volume(reference("")))
	some y in missing.deny
	contains(y.message, "(phase None)")
	ok := mutating.decision with input as input_for(serverful_pod, one_volume(reference("Bound")))
	count(ok.deny) == 0
	skipped := mutating.decision with input as input_for(pod({"fuse.serverful.fluid.io/inject": "true"}, {"sidecar.fluid.io/skip-precheck": "true"}), one_volume(reference("NotBound")))
	count(skipped.deny) == 0
}

test_a_reference_dataset_is_not_cross_namespace if {
	# Its Dataset is the Pod's namespace's; who may reference whom was decided
	# when the reference dataset was created.
	d := mutating.decision with input as input_for(serverful_pod, one_volume(reference("Bound")))
	not "dataset-cross-namespace" in {x.rule | some x in d.deny}
}

# A Dataset a DataMigrate is migrating: its Pods are admitted as Fluid
# admits them, unless the DataMigrate says block: true (issue 32, C11).
migrating(migration) := object.union(dataset("imagenet", "DataMigrating"), {"migration": migration})

test_migrating_dataset_admits_pods_unless_blocked if {
	d := mutating.decision with input as input_for(serverful_pod, one_volume(migrating({"name": "nightly", "found": true, "block": false})))
	d.deny == set()
}

test_blocking_migration_denies_naming_the_datamigrate if {
	d := mutating.decision with input as input_for(plain_pod, one_volume(migrating({"name": "nightly", "found": true, "block": true})))
	d.deny == {{"rule": "dataset-migrating", "message": "volume \"data\" uses dataset team-a/imagenet, which DataMigrate nightly is migrating with block: true; Pods of it wait until the migration ends"}}
}

test_unreadable_migration_denies_as_unknown if {
	d := mutating.decision with input as input_for(plain_pod, one_volume(migrating({"name": "nightly", "found": false, "block": false})))
	only(d.deny).rule == "dataset-migrating"
	contains(only(d.deny).message, "cannot be read")
	without := mutating.decision with input as input_for(plain_pod, one_volume(dataset("imagenet", "DataMigrating")))
	only(without.deny).rule == "dataset-migrating"
}

test_skip_precheck_admits_a_blocked_migration if {
	p := pod({}, {"sidecar.fluid.io/skip-precheck": "true"})
	d := mutating.decision with input as input_for(p, one_volume(migrating({"name": "nightly", "found": true, "block": true})))
	d.deny == set()
}
