package nodelabels

import (
	"slices"
	"strings"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestCacheKeysAreTheDatasetKeys: the keys CacheKeys names for a runtime
// type are the ones the Dataset's DatasetKey builds (which the runtime
// reconciler writes), for a short key and for one whose name is too long
// and uses the Dataset's UID; the runtime-type key gives its suffix back.
func TestCacheKeysAreTheDatasetKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  datav1alpha1.DatasetKey
	}{
		{"by name", datav1alpha1.DatasetKey{Namespace: "team-a", Name: "logs", UID: "3f0c"}},
		{"by UID", datav1alpha1.DatasetKey{Namespace: "team-a", Name: strings.Repeat("x", 60), UID: "3f0c-11"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const typ = "juicefs"
			want := []string{
				tc.key.CacheLabelKey(),
				tc.key.RuntimeCacheLabelKey(typ),
				tc.key.CapacityLabelKey(typ, datav1alpha1.MemoryCapacity),
				tc.key.CapacityLabelKey(typ, datav1alpha1.DiskCapacity),
				tc.key.CapacityLabelKey(typ, datav1alpha1.TotalCapacity),
			}
			got := CacheKeys(typ, Suffix(tc.key))
			if !slices.Equal(got, want) {
				t.Errorf("CacheKeys = %v, want %v", got, want)
			}
			if s, ok := SuffixOfRuntimeCacheKey(typ, tc.key.RuntimeCacheLabelKey(typ)); !ok || s != Suffix(tc.key) {
				t.Errorf("SuffixOfRuntimeCacheKey = %q, %v, want %q", s, ok, Suffix(tc.key))
			}
		})
	}
	if _, ok := SuffixOfRuntimeCacheKey("juicefs", "fluid.io/s-alluxio-team-a-logs"); ok {
		t.Error("an Alluxio key read as a JuiceFS one")
	}
}
