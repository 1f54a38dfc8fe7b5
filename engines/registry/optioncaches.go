package registry

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// OptionCache is the cache one component's options define: the host
// directories they name and the cache's size per pod.
type OptionCache = juicefs.OptionCache

// OptionCaches are the caches obj's options define beyond its tieredstore
// (audit N5), which the guards judge and the cache budget counts: a
// JuiceFSRuntime's worker and FUSE options (juicefs.OptionCaches). The
// other engines' field tables refuse the options that would define one,
// so a runtime of their kinds has none.
func OptionCaches(obj client.Object) []OptionCache {
	rt, ok := obj.(*datav1alpha1.JuiceFSRuntime)
	if !ok {
		return nil
	}
	return juicefs.OptionCaches(rt)
}
