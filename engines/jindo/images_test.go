package jindo_test

import (
	"slices"
	"testing"

	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/jindo"
)

// TestDefaultImagesAsConfigured: the registry mirrors the server image,
// and FUSE runs its override.
func TestDefaultImagesAsConfigured(t *testing.T) {
	e := jindo.Engine{Images: engines.Images{Registry: "mirror.example.com", Overrides: map[string]string{"jindo-fuse": "registry.example.com/jindo-fuse:7"}}}
	ds, rt := sample()
	_, out := enginetest.Render(t, e, nil, ds, rt)
	want := []string{"mirror.example.com/jindofs/smartdata:6.2.0", "registry.example.com/jindo-fuse:7"}
	if got := enginetest.Images(out); !slices.Equal(got, want) {
		t.Errorf("images %v, want %v", got, want)
	}
}
