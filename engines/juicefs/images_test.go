package juicefs_test

import (
	"slices"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// TestDefaultImagesAsConfigured: the controller's image settings reach
// the workers and FUSE of a runtime that names no image; one that names
// its own runs it.
func TestDefaultImagesAsConfigured(t *testing.T) {
	e := juicefs.Engine{Images: engines.Images{Registry: "mirror.example.com"}}
	ds, rt := sample()
	_, out := enginetest.Render(t, e, nil, ds, rt)
	if got, want := enginetest.Images(out), []string{"mirror.example.com/juicedata/juicefs-fuse:ce-v1.2.1"}; !slices.Equal(got, want) {
		t.Errorf("mirrored: images %v, want %v", got, want)
	}
	e.Images.Overrides = map[string]string{"juicefs": "registry.example.com/jfs:1.3"}
	_, out = enginetest.Render(t, e, nil, ds, rt)
	if got, want := enginetest.Images(out), []string{"registry.example.com/jfs:1.3"}; !slices.Equal(got, want) {
		t.Errorf("overridden: images %v, want %v", got, want)
	}
	rt.Spec.JuiceFSVersion = datav1alpha1.VersionSpec{Image: "juicedata/juicefs-fuse", ImageTag: "ce-v1.3.0"}
	_, out = enginetest.Render(t, e, nil, ds, rt)
	if got, want := enginetest.Images(out), []string{"juicedata/juicefs-fuse:ce-v1.3.0"}; !slices.Equal(got, want) {
		t.Errorf("the runtime's own: images %v, want %v", got, want)
	}
}
