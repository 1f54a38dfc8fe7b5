package jindo

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/engines"
)

// UFSMetadata implements engines.Engine: no documented JindoFSx or
// JindoCache metric carries the Dataset's size or file count, so a
// metadata Job counts them through the Dataset's mount. A JindoRuntime has
// no metadataSyncPolicy, so it is always on (Fluid's JindoCache engine
// reports no ufsTotal unless its controller is told to query it).
func (Engine) UFSMetadata(client.Object) engines.MetadataSource {
	return engines.MetadataSource{Sync: true}
}
