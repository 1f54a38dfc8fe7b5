package helm

import (
	"context"
	"testing"

	"helm.sh/helm/v3/pkg/release"
)

// TestReleaseOfAnotherChartIsLeftAlone (reliability audit H5): a release
// with the runtime's name but of another chart (someone else's) is
// reported Foreign and neither upgraded, rolled back nor uninstalled by
// UninstallChart; one of the engine's chart is uninstalled.
func TestReleaseOfAnotherChartIsLeftAlone(t *testing.T) {
	ctx := context.Background()
	c := NewMemoryClient("team-a", nil)
	theirs := demoChart("9.9.9")
	theirs.Metadata.Name = "their-app"
	if _, err := c.Install(ctx, "imagenet", Desired{Chart: theirs, Values: map[string]any{"replicas": 5}}); err != nil {
		t.Fatal(err)
	}
	ours := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}
	for range 2 {
		if state, act, err := c.Ensure(ctx, "imagenet", ours); err != nil || state != Foreign || act != ActionNone {
			t.Fatalf("ensure over another chart's release: %s/%s %v, want Foreign/None", state, act, err)
		}
	}
	if state, act, err := c.InstallOnce(ctx, "imagenet", ours); err != nil || state != Foreign || act != ActionNone {
		t.Fatalf("install once over another chart's release: %s/%s %v, want Foreign/None", state, act, err)
	}
	foreign, err := c.UninstallChart("imagenet", "demo")
	if err != nil || !foreign {
		t.Fatalf("uninstalling the engine's release over another chart's: foreign %v, %v", foreign, err)
	}
	rel, err := c.Latest("imagenet")
	if err != nil || rel == nil || rel.Version != 1 || rel.Chart.Metadata.Name != "their-app" || rel.Info.Status != release.StatusDeployed {
		t.Fatalf("their release afterwards: %+v %v", rel, err)
	}

	if _, err := c.Install(ctx, "logs", ours); err != nil {
		t.Fatal(err)
	}
	if foreign, err := c.UninstallChart("logs", "demo"); err != nil || foreign {
		t.Fatalf("uninstalling the engine's own release: foreign %v, %v", foreign, err)
	}
	if rel, err := c.Latest("logs"); err != nil || rel != nil {
		t.Fatalf("the engine's release was not uninstalled: %+v %v", rel, err)
	}
}
