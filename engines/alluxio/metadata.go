package alluxio

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// UFSMetadata implements engines.Engine: Alluxio's masters export the
// number of paths in the namespace (Master.TotalPaths, directories
// included) but not the bytes of its files, so a metadata Job counts both
// through the Dataset's mount, as Fluid's `alluxio fs count /` does on the
// master (a walk through Alluxio's FUSE loads the metadata it lists, as
// Fluid's loadMetadata before the count). On unless the runtime's
// metadataSyncPolicy sets autoSync false, Fluid's default.
func (Engine) UFSMetadata(rt client.Object) engines.MetadataSource {
	a, ok := rt.(*datav1alpha1.AlluxioRuntime)
	if !ok {
		return engines.MetadataSource{}
	}
	return engines.MetadataSource{Sync: a.Spec.Management.MetadataSyncPolicy.AutoSyncOr(true)}
}
