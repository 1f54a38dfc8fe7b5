package thin

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// UFSMetadata implements engines.Engine: the FUSE program is the user's,
// with no known metrics, so a metadata Job counts the Dataset's size and
// files through its mount (Fluid runs `df` and `ls -lR` in a FUSE pod). As
// in Fluid it is off unless the runtime's metadataSyncPolicy sets autoSync
// true.
func (Engine) UFSMetadata(rt client.Object) engines.MetadataSource {
	t, ok := rt.(*datav1alpha1.ThinRuntime)
	if !ok {
		return engines.MetadataSource{}
	}
	return engines.MetadataSource{Sync: t.Spec.Management.MetadataSyncPolicy.AutoSyncOr(false)}
}

// UFSMetadata implements engines.Engine, as Engine's.
func (ProfileEngine) UFSMetadata(rt client.Object) engines.MetadataSource {
	return Engine{}.UFSMetadata(rt)
}
