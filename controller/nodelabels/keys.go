package nodelabels

import (
	"strings"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// cachePrefix starts every cache label key: "fluid.io/s-".
const cachePrefix = "fluid.io/s-"

// Suffix is the part of the Dataset's label keys after their prefix:
// "<namespace>-<name>", or its UID when that is too long
// (datav1alpha1.DatasetKey).
func Suffix(key datav1alpha1.DatasetKey) string {
	return strings.TrimPrefix(key.CacheLabelKey(), cachePrefix)
}

// CacheKeys are the keys of the labels a runtime of type typ sets on a node
// holding the cache of the Dataset whose keys end in suffix (Suffix): the
// cache label, the runtime-type cache label (always "true") and the three
// capacity labels. The exclusive label (datav1alpha1.LabelExclusive) is not
// among them: its key is shared, its value names the Dataset.
func CacheKeys(typ, suffix string) []string {
	return []string{
		cachePrefix + suffix,
		RuntimeCacheKey(typ, suffix),
		cachePrefix + "h-" + typ + "-" + string(datav1alpha1.MemoryCapacity) + "-" + suffix,
		cachePrefix + "h-" + typ + "-" + string(datav1alpha1.DiskCapacity) + "-" + suffix,
		cachePrefix + "h-" + typ + "-" + string(datav1alpha1.TotalCapacity) + "-" + suffix,
	}
}

// RuntimeCacheKey is the runtime-type cache label key,
// "fluid.io/s-<typ>-<suffix>".
func RuntimeCacheKey(typ, suffix string) string { return cachePrefix + typ + "-" + suffix }

// SuffixOfRuntimeCacheKey returns the suffix of a runtime-type cache
// label key of type typ, and whether key is one.
func SuffixOfRuntimeCacheKey(typ, key string) (string, bool) {
	s, ok := strings.CutPrefix(key, cachePrefix+typ+"-")
	return s, ok && s != ""
}
