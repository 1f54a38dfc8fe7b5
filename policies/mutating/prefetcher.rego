# Fluid's FilePrefetcher annotations (file-prefetcher.fluid.io/*).
#
# Fluid injects a file-prefetcher container into a Pod annotated
# file-prefetcher.fluid.io/inject=true, which reads the listed files of
# its datasets before the app starts. Sluice has no file prefetcher: a Pod
# carrying any of these annotations is admitted, with a warning naming
# them, instead of having them ignored without a word.
package sluice.mutating

import rego.v1

file_prefetcher_prefix := "file-prefetcher.fluid.io/"

file_prefetcher_annotations := sort([k |
	some k, _ in object.get(input.pod.metadata, "annotations", {})
	startswith(k, file_prefetcher_prefix)
])

warnings contains msg if {
	count(file_prefetcher_annotations) > 0
	msg := sprintf(
		"%s: not supported: Sluice has no file prefetcher, so no prefetcher container is injected and the files are not read ahead; warm the cache with a DataLoad instead",
		[concat(", ", file_prefetcher_annotations)],
	)
}
