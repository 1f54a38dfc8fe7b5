package alluxio

import (
	"testing"

	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestUFSMetadata: Fluid syncs an AlluxioRuntime's metadata unless autoSync
// is false; Alluxio's metrics do not carry the bytes, so a Job counts them.
func TestUFSMetadata(t *testing.T) {
	rt := &datav1alpha1.AlluxioRuntime{}
	if src := (Engine{}).UFSMetadata(rt); !src.Sync || src.Pages != nil {
		t.Errorf("default: %+v; want a metadata Job", src)
	}
	rt.Spec.Management.MetadataSyncPolicy.AutoSync = ptr.To(false)
	if src := (Engine{}).UFSMetadata(rt); src.Sync {
		t.Errorf("autoSync false: %+v; want off", src)
	}
}
