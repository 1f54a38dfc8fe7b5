package alluxio

import (
	"maps"
	"slices"
	"strings"
)

// Cache properties. The workers' cache is spec.tieredstore: its paths are
// judged (the validating webhook's tieredstore-path rule), each backed by
// the runtime's own directory of the node, and its quotas count in the
// namespace's cache budget. A property that places or sizes a cache
// would escape both, so the properties fields refuse them
// (checkCacheProperties); Fluid's docs configure Alluxio's cache through
// spec.tieredstore only.

// cachePropertyPrefixes are the property name prefixes of the cache
// layout Sluice derives from spec.tieredstore (planTiers):
// TestTierPropertiesAreRefused checks that every property planTiers
// writes has one.
var cachePropertyPrefixes = []string{"alluxio.worker.tieredstore."}

// cacheProperties are the other properties that place or size an
// Alluxio cache (Alluxio 2.9 PropertyKey): the ramdisk size a MEM tier
// defaults to, the page store's directories and sizes, the client-side
// (FUSE) local cache's.
var cacheProperties = []string{
	"alluxio.worker.memory.size",
	"alluxio.worker.ramdisk.size",
	"alluxio.worker.page.store.dirs",
	"alluxio.worker.page.store.sizes",
	"alluxio.user.client.cache.dirs",
	"alluxio.user.client.cache.size",
}

// isCacheProperty says whether property k places or sizes a cache.
func isCacheProperty(k string) bool {
	return slices.Contains(cacheProperties, k) || slices.ContainsFunc(cachePropertyPrefixes, func(p string) bool { return strings.HasPrefix(k, p) })
}

// checkCacheProperties is the Check of every properties row: it refuses
// the cache properties a map sets, naming them.
func checkCacheProperties(v any) string {
	props, _ := v.(map[string]string)
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if isCacheProperty(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "the cache properties " + strings.Join(bad, ", ") + " would place or size a cache outside spec.tieredstore, whose paths are judged and whose quotas count in the namespace's cache budget; set spec.tieredstore instead"
}
