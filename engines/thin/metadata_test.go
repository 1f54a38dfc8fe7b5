package thin

import (
	"testing"

	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestUFSMetadata: as in Fluid, a ThinRuntime's metadata is synced only
// when autoSync is true, by a metadata Job (its FUSE program has no known
// metrics).
func TestUFSMetadata(t *testing.T) {
	rt := &datav1alpha1.ThinRuntime{}
	if src := (ProfileEngine{}).UFSMetadata(rt); src.Sync {
		t.Errorf("unset: %+v; want off", src)
	}
	rt.Spec.Management.MetadataSyncPolicy.AutoSync = ptr.To(true)
	if src := (ProfileEngine{}).UFSMetadata(rt); !src.Sync || src.Pages != nil {
		t.Errorf("autoSync true: %+v; want a metadata Job", src)
	}
}
