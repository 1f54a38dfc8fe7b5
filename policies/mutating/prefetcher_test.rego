package sluice.mutating_test

import rego.v1

import data.sluice.mutating

prefetcher_warning(keys) := sprintf(
	"%s: not supported: Sluice has no file prefetcher, so no prefetcher container is injected and the files are not read ahead; warm the cache with a DataLoad instead",
	[keys],
)

test_file_prefetcher_annotations_are_warned_naming_them if {
	annotations := {
		"file-prefetcher.fluid.io/inject": "true",
		"file-prefetcher.fluid.io/file-list": "pvc://models/*.bin",
		"example.com/other": "x",
	}
	d := mutating.decision with input as input_for(pod({"serverless.fluid.io/inject": "true"}, annotations), one_volume(bound("imagenet")))
	d.warnings == {prefetcher_warning("file-prefetcher.fluid.io/file-list, file-prefetcher.fluid.io/inject")}
	count(d.sidecars) == 1
}

test_file_prefetcher_warned_without_datasets if {
	d := mutating.decision with input as input_for(pod({}, {"file-prefetcher.fluid.io/async-prefetch": "true"}), [])
	d.warnings == {prefetcher_warning("file-prefetcher.fluid.io/async-prefetch")}
}

test_no_prefetcher_warning_without_its_annotations if {
	d := mutating.decision with input as input_for(pod({"serverless.fluid.io/inject": "true"}, {"file-prefetcher.example.com/inject": "true"}), one_volume(bound("imagenet")))
	d.warnings == set()
}
