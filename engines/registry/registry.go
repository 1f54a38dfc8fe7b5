package registry

import (
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/engines/thin"
)

// Options configure the engines.
type Options struct {
	// SluiceImage is the image of the sluice binary, which runs the
	// commands no engine image has (a Thin DataLoad's sluice warmup): the
	// controller's --sluice-image.
	SluiceImage string
	// Images set the engines' default images (DefaultImages): the
	// controller's --image-registry and --engine-image.
	Images engines.Images
}

// registered are Sluice's engines, each with its field tables, in the
// order docs/engines.md shows them.
var registered = []struct {
	engine func(Options) engines.Engine
	// fields and dataset are the engine's field tables (Table).
	fields, dataset engines.Fields
}{
	{func(o Options) engines.Engine { return juicefs.Engine{Images: o.Images} }, juicefs.Fields, juicefs.DatasetFields},
	{func(o Options) engines.Engine { return alluxio.Engine{Images: o.Images} }, alluxio.Fields, alluxio.DatasetFields},
	{func(o Options) engines.Engine { return jindo.Engine{Images: o.Images} }, jindo.Fields, jindo.DatasetFields},
	{func(o Options) engines.Engine { return thin.Engine{SluiceImage: o.SluiceImage} }, thin.Fields, thin.DatasetFields},
}

// Default returns Sluice's engines (JuiceFS, Alluxio, Jindo, Thin), one
// per runtime kind.
func Default(o Options) []engines.Engine {
	out := make([]engines.Engine, len(registered))
	for i, r := range registered {
		out[i] = r.engine(o)
	}
	return out
}
