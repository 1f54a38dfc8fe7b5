package helm

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
)

func demoChart(version string) *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "demo", Version: version},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  replicas: \"{{ .Values.replicas }}\"\n")}},
	}
}

func rel(version int, status release.Status, chartVersion string, values map[string]any) *release.Release {
	return &release.Release{Version: version, Info: &release.Info{Status: status}, Chart: demoChart(chartVersion), Config: values}
}

func TestClassifyAndNext(t *testing.T) {
	want := Desired{Chart: demoChart("0.2.0"), Values: map[string]any{"replicas": 2}}
	tests := []struct {
		name  string
		rel   *release.Release
		state State
		next  Action
	}{
		// name, latest revision, state, next action
		{"no release", nil, Absent, ActionInstall},
		{"install in progress", rel(1, release.StatusPendingInstall, "0.2.0", nil), Pending, ActionWait},
		{"upgrade in progress", rel(2, release.StatusPendingUpgrade, "0.2.0", nil), Pending, ActionWait},
		{"first install failed", rel(1, release.StatusFailed, "0.2.0", nil), Failed, ActionReinstall},
		{"an upgrade failed", rel(3, release.StatusFailed, "0.2.0", nil), Failed, ActionRollback},
		{"older chart", rel(1, release.StatusDeployed, "0.1.0", map[string]any{"replicas": 2}), OutOfSync, ActionUpgrade},
		{"other values", rel(1, release.StatusDeployed, "0.2.0", map[string]any{"replicas": 3}), OutOfSync, ActionUpgrade},
		{"same values after a JSON round trip", rel(1, release.StatusDeployed, "0.2.0", map[string]any{"replicas": float64(2)}), InSync, ActionNone},
		{"uninstalled", rel(2, release.StatusUninstalled, "0.2.0", nil), OutOfSync, ActionReinstall},
		{"an uninstall cut short", rel(1, release.StatusUninstalling, "0.2.0", nil), OutOfSync, ActionReinstall},
		{"superseded", rel(2, release.StatusSuperseded, "0.2.0", nil), OutOfSync, ActionUpgrade},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.rel, want); got != tt.state {
				t.Fatalf("state = %s, want %s", got, tt.state)
			}
			if got := Next(tt.state, tt.rel); got != tt.next {
				t.Fatalf("next = %s, want %s", got, tt.next)
			}
		})
	}
}

// TestAnUninstallCutShortIsReinstalled: a reinstall (of a release whose
// first install failed) whose uninstall stopped after marking the record
// uninstalling, as a reset connection can stop it, leaves no deployed
// revision; Helm cannot upgrade that, so Ensure finishes the uninstall and
// installs again instead of failing "has no deployed releases" for ever.
func TestAnUninstallCutShortIsReinstalled(t *testing.T) {
	ctx := context.Background()
	kube := &kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}}
	c := NewMemoryClient("team-a", kube)
	d := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}
	left := rel(1, release.StatusUninstalling, "0.1.0", map[string]any{"replicas": 1})
	left.Name, left.Namespace = "demo", "team-a"
	if err := c.cfg.Releases.Create(left); err != nil {
		t.Fatal(err)
	}
	state, act, err := c.Ensure(ctx, "demo", d)
	if err != nil || state != OutOfSync || act != ActionReinstall {
		t.Fatalf("ensure: %s/%s %v, want OutOfSync/Reinstall", state, act, err)
	}
	if got, err := c.Latest("demo"); err != nil || got.Info.Status != release.StatusDeployed {
		t.Fatalf("after the reinstall: %+v %v", got, err)
	}
	if state, act, err := c.Ensure(ctx, "demo", d); err != nil || state != InSync || act != ActionNone {
		t.Fatalf("then: %s/%s %v, want InSync/None", state, act, err)
	}
}

// TestEnsureDrivesReleases runs the Helm SDK with in-memory storage: install,
// converge, upgrade on a values change, roll back a failed upgrade.
func TestEnsureDrivesReleases(t *testing.T) {
	ctx := context.Background()
	kube := &kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}}
	c := NewMemoryClient("team-a", kube)
	v1 := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}

	step := func(d Desired, wantState State, wantAction Action) {
		t.Helper()
		state, act, err := c.Ensure(ctx, "demo", d)
		if err != nil && wantAction != ActionUpgrade {
			t.Fatalf("ensure: %v", err)
		}
		if state != wantState || act != wantAction {
			t.Fatalf("ensure: %s/%s, want %s/%s", state, act, wantState, wantAction)
		}
	}
	step(v1, Absent, ActionInstall)
	step(v1, InSync, ActionNone)
	rel, err := c.Latest("demo")
	if err != nil || rel.Version != 1 || !strings.Contains(rel.Manifest, `replicas: "1"`) {
		t.Fatalf("release after install: %+v %v", rel, err)
	}

	v2 := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 2}}
	step(v2, OutOfSync, ActionUpgrade)
	step(v2, InSync, ActionNone)

	// An upgrade the cluster refuses leaves a failed revision, which rolls back.
	kube.UpdateError = errors.New("admission webhook denied the update")
	v3 := Desired{Chart: demoChart("0.2.0"), Values: map[string]any{"replicas": 3}}
	if _, _, err := c.Ensure(ctx, "demo", v3); err == nil || !strings.Contains(err.Error(), "denied the update") {
		t.Fatalf("failing upgrade: %v", err)
	}
	kube.UpdateError = nil
	// The rollback says the spec failed, and when it is tried again.
	var retry *RetryAfter
	if state, act, err := c.Ensure(ctx, "demo", v3); state != Failed || act != ActionRollback || !errors.As(err, &retry) || retry.Attempts != 1 {
		t.Fatalf("after the failed upgrade: %s/%s %v, want Failed/Rollback and a RetryAfter of 1 attempt", state, act, err)
	}
	rel, _ = c.Latest("demo")
	if rel.Info.Status != release.StatusDeployed || !strings.Contains(rel.Manifest, `replicas: "2"`) {
		t.Fatalf("after rollback: %s %q", rel.Info.Status, rel.Manifest)
	}
	if state, act, err := c.Ensure(ctx, "demo", v3); state != OutOfSync || act != ActionWait || !errors.As(err, &retry) {
		t.Fatalf("before the retry is due: %s/%s %v, want OutOfSync/Wait and a RetryAfter", state, act, err)
	}
	c.RetryBase = time.Millisecond
	time.Sleep(2 * time.Millisecond)
	step(v3, OutOfSync, ActionUpgrade)

	if _, err := c.UninstallChart("demo", "demo"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UninstallChart("demo", "demo"); err != nil {
		t.Fatalf("uninstalling twice: %v", err)
	}
}
