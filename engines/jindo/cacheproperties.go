package jindo

// Cache properties. The workers' cache is spec.tieredstore levels[0]: its
// paths are judged (the validating webhook's tieredstore-path rule), each
// backed by the runtime's own directory of the node, and its quotas count
// in the namespace's cache budget. buildConfig writes the cache layout
// into [jindocache-worker] and lets the user's properties override it, so
// every properties field refuses the properties that place or size the
// cache (plainProperties); Fluid's docs configure JindoCache's cache
// through spec.tieredstore.

// cacheProperties are the properties buildConfig derives from
// spec.tieredstore, with what each is. TestTierPropertiesAreJudged checks
// that every property whose value depends on spec.tieredstore is here,
// refused or listed in boundedTierProperties.
var cacheProperties = map[string]string{
	"storage.data-dirs":            "the cache directories",
	"storage.data-dirs.capacities": "the size of each cache directory",
	"storage.ram.cache.size":       "the size of the memory cache",
}

// boundedTierProperties are the properties derived from spec.tieredstore
// that neither place nor size the cache, with why they need no judging.
var boundedTierProperties = map[string]string{
	"storage.watermark.high.ratio":   "a ratio of the cache that starts eviction, bounded by the capacities",
	"storage.watermark.low.ratio":    "a ratio of the cache that eviction stops at, bounded by the capacities",
	"fs.jindocache.ram.cache.enable": "whether clients read the memory cache, no size",
}
