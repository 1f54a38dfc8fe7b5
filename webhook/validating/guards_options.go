package validating

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/registry"
)

// Caches that engine options define (audit N5). A JuiceFSRuntime's
// spec.worker.options and spec.fuse.options may name cache directories
// (cache-dir) and a cache size (cache-size) other than the tier's, as
// Fluid's docs use them: the directories the engine backs with a hostPath
// are judged as tieredstore paths (rule tieredstore-path, at the
// option's field), and a size above the tier's counts in the namespace's
// cache budget (rule namespace-cache-budget, facts.optionCaches). The
// other engines refuse the properties that would place or size a cache
// in their field tables (engines/alluxio, engines/jindo cacheproperties.go),
// and ThinRuntime options name nothing the engine turns into a directory.
// TestEveryEngineCacheOptionIsJudgedOrRefused enumerates them.

// OptionCacheFacts is the cache one component's options define beyond
// its runtime's tieredstore: Bytes is what it adds over the tier's quota
// on all replicas, counted in Medium's budget; Path names the option.
type OptionCacheFacts struct {
	Path   string `json:"path"`
	Medium string `json:"medium"`
	Bytes  int64  `json:"bytes"`
}

// optionCacheMedium is the medium an option cache counts in when the
// runtime has no tieredstore level to give one: a directory of the
// node's disk.
const optionCacheMedium = string(datav1alpha1.HDD)

// optionCaches are the caches a runtime's options define beyond its
// tieredstore. A component's cache per pod is the tier's quota unless its
// options say otherwise (registry.OptionCaches); what it asks above the
// tier's quota (levels[0], the one level JuiceFS uses) counts, on every
// replica, as the tier's own quota x replicas does. A smaller one counts
// nothing: the tier's quota is counted already.
func optionCaches(obj client.Object) []OptionCacheFacts {
	rt, ok := obj.(*datav1alpha1.JuiceFSRuntime)
	if !ok {
		return nil
	}
	medium, tierBytes := optionCacheMedium, int64(0)
	if levels := levelFacts(rt.Spec.TieredStore); len(levels) > 0 {
		medium, tierBytes = levels[0].Medium, levelBytes(levels[0])
	}
	var out []OptionCacheFacts
	for _, c := range registry.OptionCaches(rt) {
		if !c.Defined || c.Bytes <= tierBytes {
			continue
		}
		out = append(out, OptionCacheFacts{Path: c.SizeField, Medium: medium, Bytes: (c.Bytes - tierBytes) * int64(rt.Spec.Replicas)})
	}
	return out
}

// levelBytes is a level's size on one replica, as the budget rule counts
// it (level_bytes): its quotaList's sum, else its quota.
func levelBytes(l LevelFacts) int64 {
	if len(l.QuotaListBytes) == 0 {
		return l.QuotaBytes
	}
	var sum int64
	for _, q := range l.QuotaListBytes {
		sum += q
	}
	return sum
}
