package helm

import (
	"context"
	"io"
	"testing"
	"testing/fstest"

	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
)

// TestInstallOnce installs an absent release, leaves a deployed one alone
// even when the values changed, and installs again after a failed install.
func TestInstallOnce(t *testing.T) {
	ctx := context.Background()
	kube := &kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}}
	c := NewMemoryClient("team-a", kube)
	d := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}
	step := func(d Desired, wantState State, wantAction Action, wantErr bool) {
		t.Helper()
		state, act, err := c.InstallOnce(ctx, "op", d)
		if (err != nil) != wantErr || state != wantState || act != wantAction {
			t.Fatalf("InstallOnce: %s/%s (%v), want %s/%s (error %v)", state, act, err, wantState, wantAction, wantErr)
		}
	}
	step(d, Absent, ActionInstall, false)
	step(Desired{Chart: demoChart("0.2.0"), Values: map[string]any{"replicas": 2}}, InSync, ActionNone, false)
	if rel, _ := c.Latest("op"); rel.Version != 1 || rel.Config["replicas"] != 1 {
		t.Fatalf("the deployed release changed: revision %d, values %v", rel.Version, rel.Config)
	}

	// A failed install is uninstalled and installed again.
	c = NewMemoryClient("team-a", kube)
	failed := rel(1, release.StatusFailed, "0.1.0", nil)
	failed.Name, failed.Namespace = "op", "team-a"
	if err := c.cfg.Releases.Create(failed); err != nil {
		t.Fatal(err)
	}
	step(d, Failed, ActionReinstall, false)
	if rel, _ := c.Latest("op"); rel.Info.Status != release.StatusDeployed {
		t.Fatalf("release after reinstalling: %s", rel.Info.Status)
	}
	// An install in progress is waited for.
	rel, _ := c.Latest("op")
	rel.Info.Status = release.StatusPendingInstall
	if err := c.cfg.Releases.Update(rel); err != nil {
		t.Fatal(err)
	}
	step(d, Pending, ActionWait, false)
}

func TestChartCacheLoadsOnce(t *testing.T) {
	fsys := fstest.MapFS{
		"Chart.yaml":         {Data: []byte("apiVersion: v2\nname: op\nversion: 0.1.0\n")},
		"templates/job.yaml": {Data: []byte("kind: Job\n")},
	}
	var cache ChartCache
	a, err := cache.Load(&fsys)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cache.Load(&fsys)
	if err != nil || a != b {
		t.Fatalf("second load: %p %p %v; want the same chart", a, b, err)
	}
	// A map (not comparable) is loaded every time.
	c, err := cache.Load(fsys)
	if err != nil || c == a || c.Name() != "op" {
		t.Fatalf("uncacheable load: %v %v", c, err)
	}
}
