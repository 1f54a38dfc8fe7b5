package registry

import (
	"slices"

	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// DefaultImages are the built-in default images of Sluice's engines, by
// name: what --engine-image overrides and --image-registry mirrors. (Thin
// runs its profile's image, and Sluice's own for its data loads.)
func DefaultImages() []engines.DefaultImage {
	return slices.Concat(juicefs.DefaultImages, alluxio.DefaultImages, jindo.DefaultImages)
}

// CheckImages refuses image settings naming no default image, or with a
// registry or a reference that is not one.
func CheckImages(i engines.Images) error {
	return i.Check(DefaultImages())
}
