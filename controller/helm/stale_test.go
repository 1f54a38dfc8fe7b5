package helm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// pendingFor stores revision 2 of release demo as an upgrade pending since
// age ago, over a deployed revision 1 with one replica, as a controller
// killed in the middle of the upgrade leaves it.
func pendingFor(t *testing.T, c *Client, age time.Duration) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Install(ctx, "demo", Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}); err != nil {
		t.Fatal(err)
	}
	deployed, err := c.Latest("demo")
	if err != nil {
		t.Fatal(err)
	}
	deployed.Info.Status = release.StatusSuperseded
	if err := c.cfg.Releases.Update(deployed); err != nil {
		t.Fatal(err)
	}
	pending := rel(2, release.StatusPendingUpgrade, "0.1.0", map[string]any{"replicas": 2})
	pending.Name, pending.Namespace = "demo", "team-a"
	pending.Info.LastDeployed = helmtime.Time{Time: time.Now().Add(-age)}
	if err := c.Store(pending); err != nil {
		t.Fatal(err)
	}
}

// TestAbandonedPendingReleaseRecovers: an upgrade left pending longer than
// the client's Timeout allows is marked failed, rolled back, and upgraded
// to what is desired now; one pending for less is waited for.
func TestAbandonedPendingReleaseRecovers(t *testing.T) {
	ctx := context.Background()
	want := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 3}}

	live := NewMemoryClient("team-a", nil)
	pendingFor(t, live, live.Timeout/2)
	if state, act, err := live.Ensure(ctx, "demo", want); err != nil || state != Pending || act != ActionWait {
		t.Fatalf("an upgrade pending for half the timeout: %s/%s %v, want Pending/Wait", state, act, err)
	}

	c := NewMemoryClient("team-a", nil)
	pendingFor(t, c, c.Timeout+2*staleAfter)
	if state, act, err := c.Ensure(ctx, "demo", want); err != nil || state != Failed || act != ActionRollback {
		t.Fatalf("an abandoned upgrade: %s/%s %v, want Failed/Rollback", state, act, err)
	}
	history, err := c.history("demo")
	if err != nil {
		t.Fatal(err)
	}
	if h := history[1]; h.Version != 2 || h.Info.Status != release.StatusFailed || !strings.Contains(h.Info.Description, "pending-upgrade abandoned") {
		t.Errorf("the abandoned revision: %d %s %q", h.Version, h.Info.Status, h.Info.Description)
	}
	if state, act, err := c.Ensure(ctx, "demo", want); err != nil || act != ActionUpgrade {
		t.Fatalf("after the rollback: %s/%s %v, want an upgrade", state, act, err)
	}
	latest, err := c.Latest("demo")
	if err != nil || latest.Info.Status != release.StatusDeployed || !strings.Contains(latest.Manifest, `replicas: "3"`) {
		t.Fatalf("the release after recovery: %+v %v", latest.Info, err)
	}
}

// TestAbandonedPendingInstallIsInstalledAgain: InstallOnce (an operation's
// release) installs again over an install abandoned while pending.
func TestAbandonedPendingInstallIsInstalledAgain(t *testing.T) {
	c := NewMemoryClient("team-a", nil)
	pending := rel(1, release.StatusPendingInstall, "0.1.0", map[string]any{"replicas": 1})
	pending.Name, pending.Namespace = "demo", "team-a"
	pending.Info.LastDeployed = helmtime.Time{Time: time.Now().Add(-c.Timeout - 2*staleAfter)}
	if err := c.Store(pending); err != nil {
		t.Fatal(err)
	}
	state, act, err := c.InstallOnce(context.Background(), "demo", Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}})
	if err != nil || state != Failed || act != ActionReinstall {
		t.Fatalf("an abandoned install: %s/%s %v, want Failed/Reinstall", state, act, err)
	}
	if latest, err := c.Latest("demo"); err != nil || latest.Info.Status != release.StatusDeployed {
		t.Fatalf("after reinstalling: %+v %v", latest, err)
	}
}

// TestHistoryIsCapped: upgrades keep at most MaxHistory revisions.
func TestHistoryIsCapped(t *testing.T) {
	ctx := context.Background()
	c := NewMemoryClient("team-a", nil)
	for i := range 2 * MaxHistory {
		if _, _, err := c.Ensure(ctx, "demo", Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": i}}); err != nil {
			t.Fatal(err)
		}
	}
	history, err := c.history("demo")
	if err != nil {
		t.Fatal(err)
	}
	if len(history) > MaxHistory || history[0].Version != 2*MaxHistory {
		t.Errorf("%d revisions kept, the latest %d; want at most %d, the latest %d", len(history), history[0].Version, MaxHistory, 2*MaxHistory)
	}
}

// TestPendingRecordOfAGoneWriterRecoversAtOnce: a controller killed in the
// middle of an upgrade leaves its record pending; the controller started
// after it (another Writer) takes the record as abandoned at once and
// upgrades, instead of waiting out Timeout (tests/chaos kills the
// controller and expects convergence within a minute). It has no good
// chart and values of its own to roll back to (lastgood.go), and the
// abandoned record is no failed attempt of the desired ones: it deploys
// them.
func TestPendingRecordOfAGoneWriterRecoversAtOnce(t *testing.T) {
	ctx := context.Background()
	want := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 3}}

	killed := NewMemoryClient("team-a", nil)
	killed.Writer = NewWriter()
	if _, err := killed.Install(ctx, "demo", Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}); err != nil {
		t.Fatal(err)
	}
	latest, err := killed.Latest("demo")
	if err != nil {
		t.Fatal(err)
	}
	if got := latest.Labels[WriterLabel]; got != killed.Writer {
		t.Fatalf("the installed record's %s label = %q, want the writer %q", WriterLabel, got, killed.Writer)
	}
	latest.Info.Status = release.StatusSuperseded
	if err := killed.cfg.Releases.Update(latest); err != nil {
		t.Fatal(err)
	}
	pending := rel(2, release.StatusPendingUpgrade, "0.1.0", map[string]any{"replicas": 2})
	pending.Name, pending.Namespace = "demo", "team-a"
	pending.Info.LastDeployed = helmtime.Time{Time: time.Now()}
	pending.Labels = map[string]string{WriterLabel: killed.Writer}
	if err := killed.Store(pending); err != nil {
		t.Fatal(err)
	}

	// The next process shares the release storage, not the identity.
	next := &Client{cfg: killed.cfg, namespace: killed.namespace, Timeout: killed.Timeout, Writer: NewWriter(), actions: &inFlight{}, caps: &capabilities{caps: chartutil.DefaultCapabilities}}
	if next.Writer == killed.Writer {
		t.Fatal("NewWriter returned the same identity twice")
	}
	if state, act, err := next.Ensure(ctx, "demo", want); err != nil || state != Failed || act != ActionUpgrade {
		t.Fatalf("an upgrade the killed process left pending a moment ago: %s/%s %v, want Failed/Upgrade at once", state, act, err)
	}
	history, err := next.history("demo")
	if err != nil {
		t.Fatal(err)
	}
	if h := history[1]; h.Info.Status != release.StatusFailed || !strings.Contains(h.Info.Description, "written by controller process "+killed.Writer) {
		t.Errorf("the abandoned revision: %s %q", h.Info.Status, h.Info.Description)
	}
	if state, act, err := next.Ensure(ctx, "demo", want); err != nil || state != InSync || act != ActionNone {
		t.Fatalf("after the upgrade: %s/%s %v, want InSync", state, act, err)
	}
	if latest, err := next.Latest("demo"); err != nil || latest.Info.Status != release.StatusDeployed || latest.Labels[WriterLabel] != next.Writer ||
		!strings.Contains(latest.Manifest, `replicas: "3"`) {
		t.Fatalf("the release after recovery: %+v, labels %v, %v", latest.Info, latest.Labels, err)
	}
}

// TestAbandonedInstallIsNoFailedAttempt: an install its dead process left
// pending, with the very chart and values still desired, is installed
// again at once: the abandoned record is no failed attempt of the spec, so
// no retry back-off applies (a SIGKILLed controller's Datasets had waited
// RetryBase for their release).
func TestAbandonedInstallIsNoFailedAttempt(t *testing.T) {
	want := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}
	c := NewMemoryClient("team-a", nil)
	c.Writer = NewWriter()
	pending := rel(1, release.StatusPendingInstall, "0.1.0", want.Values)
	pending.Name, pending.Namespace = "demo", "team-a"
	pending.Info.LastDeployed = helmtime.Time{Time: time.Now()}
	pending.Labels = map[string]string{WriterLabel: NewWriter()}
	if err := c.Store(pending); err != nil {
		t.Fatal(err)
	}
	if state, act, err := c.Ensure(context.Background(), "demo", want); err != nil || state != Failed || act != ActionReinstall {
		t.Fatalf("an install of the desired spec abandoned a moment ago: %s/%s %v, want Failed/Reinstall at once", state, act, err)
	}
	if latest, err := c.Latest("demo"); err != nil || latest.Info.Status != release.StatusDeployed {
		t.Fatalf("after reinstalling: %+v %v", latest, err)
	}
}

// TestSettleInstallOfAGoneWriter: an install another process left pending
// (its workload exists, the caller saw it) is recorded deployed, and so is
// one of this process that no action of it holds; one an action of this
// process holds is left alone.
func TestSettleInstallOfAGoneWriter(t *testing.T) {
	c := NewMemoryClient("team-a", nil)
	c.Writer = NewWriter()
	busy, err := c.actions.hold("busy")
	if err != nil {
		t.Fatal(err)
	}
	defer busy()
	for _, tc := range []struct {
		name, writer string
		want         release.Status
	}{
		{"gone", NewWriter(), release.StatusDeployed},    // another process: abandoned
		{"ours", c.Writer, release.StatusDeployed},       // this process, no action on it: abandoned
		{"busy", c.Writer, release.StatusPendingInstall}, // this process, an action on it: in progress
	} {
		pending := rel(1, release.StatusPendingInstall, "0.1.0", map[string]any{"replicas": 1})
		pending.Name, pending.Namespace = tc.name, "team-a"
		pending.Info.LastDeployed = helmtime.Time{Time: time.Now()}
		pending.Labels = map[string]string{WriterLabel: tc.writer}
		if err := c.Store(pending); err != nil {
			t.Fatal(err)
		}
		if _, err := c.SettleInstall(tc.name, Owner{Charts: []string{"demo"}}); err != nil && tc.name != "busy" {
			t.Fatal(err)
		}
		if latest, err := c.Latest(tc.name); err != nil || latest.Info.Status != tc.want {
			t.Errorf("%s: %+v %v, want %s", tc.name, latest.Info, err, tc.want)
		}
	}
}

// TestUpgradeTakesOverAnAbandonedPendingRecord: Upgrade (the cache
// cleanup's step from one stage to the next) over a record another
// process left pending, as a controller SIGKILLed in the middle of the
// cleanup's install leaves it, marks it failed and upgrades; tests/chaos
// once found a deletion wedged behind such a record, every step refused
// with "another operation is in progress". A record of this very process
// is waited for while an action of it holds the release.
func TestUpgradeTakesOverAnAbandonedPendingRecord(t *testing.T) {
	ctx := context.Background()
	want := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 2}}
	c := NewMemoryClient("team-a", nil)
	c.Writer = NewWriter()
	store := func(writer string) {
		t.Helper()
		pending := rel(1, release.StatusPendingInstall, "0.1.0", map[string]any{"replicas": 1})
		pending.Name, pending.Namespace = "demo", "team-a"
		pending.Info.LastDeployed = helmtime.Time{Time: time.Now()}
		pending.Labels = map[string]string{WriterLabel: writer}
		if err := c.Store(pending); err != nil {
			t.Fatal(err)
		}
	}

	store(c.Writer)
	done, err := c.actions.hold("demo")
	if err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if _, err := c.Upgrade(ctx, "demo", want); !errors.As(err, &busy) {
		t.Fatalf("an upgrade over this process's install in progress: %v, want a *BusyError", err)
	}
	done()
	if _, err := c.cfg.Releases.Delete("demo", 1); err != nil {
		t.Fatal(err)
	}

	store(NewWriter())
	if _, err := c.Upgrade(ctx, "demo", want); err != nil {
		t.Fatalf("an upgrade over an install its dead process left pending: %v", err)
	}
	history, err := c.history("demo")
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 2 || history[0].Info.Status != release.StatusDeployed || !strings.Contains(history[1].Info.Description, "pending-install abandoned") {
		t.Fatalf("after the upgrade: %d revisions, latest %s, the first %q", len(history), history[0].Info.Status, history[1].Info.Description)
	}
}

// TestOwnPendingRecordWithNoActionRecoversAtOnce: a fault on Helm's last
// record write of an upgrade (Helm only logs it) leaves this process's
// own record pending-upgrade with no action of the process on it; the
// next Ensure takes it as abandoned at once, instead of waiting the
// Timeout out (tests/faults once saw a scale not converge for that).
func TestOwnPendingRecordWithNoActionRecoversAtOnce(t *testing.T) {
	ctx := context.Background()
	want := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 2}}
	c := NewMemoryClient("team-a", nil)
	c.Writer = NewWriter()
	pendingFor(t, c, 0)
	latest, err := c.Latest("demo")
	if err != nil {
		t.Fatal(err)
	}
	latest.Labels = map[string]string{WriterLabel: c.Writer}
	if err := c.cfg.Releases.Update(latest); err != nil {
		t.Fatal(err)
	}
	if state, act, err := c.Ensure(ctx, "demo", want); err != nil || state != Failed || act != ActionRollback {
		t.Fatalf("this process's upgrade left pending, no action on it: %s/%s %v, want Failed/Rollback", state, act, err)
	}
	history, err := c.history("demo")
	if err != nil {
		t.Fatal(err)
	}
	if h := history[1]; h.Version != 2 || h.Info.Status != release.StatusFailed || !strings.Contains(h.Info.Description, "written by this controller process") {
		t.Errorf("the abandoned revision: %d %s %q", h.Version, h.Info.Status, h.Info.Description)
	}
	if state, act, err := c.Ensure(ctx, "demo", want); err != nil || act != ActionUpgrade {
		t.Fatalf("after the rollback: %s/%s %v, want an upgrade", state, act, err)
	}
	if latest, err := c.Latest("demo"); err != nil || latest.Info.Status != release.StatusDeployed || !strings.Contains(latest.Manifest, `replicas: "2"`) {
		t.Fatalf("the release after recovery: %+v %v", latest.Info, err)
	}
}

// TestOneActionAtATimePerRelease: while an action holds a release, every
// other action of the Client on it is refused with a *BusyError (and
// leaves its records alone); other releases are not held.
func TestOneActionAtATimePerRelease(t *testing.T) {
	ctx := context.Background()
	d := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}
	c := NewMemoryClient("team-a", nil)
	done, err := c.actions.hold("demo")
	if err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	for what, err := range map[string]error{
		"Install":     second(c.Install(ctx, "demo", d)),
		"Upgrade":     second(c.Upgrade(ctx, "demo", d)),
		"Uninstall":   second(c.UninstallOwned("demo", Owner{Charts: []string{"demo"}})),
		"Settle":      second(c.SettleInstall("demo", Owner{Charts: []string{"demo"}})),
		"Ensure":      third(c.Ensure(ctx, "demo", d)),
		"InstallOnce": third(c.InstallOnce(ctx, "demo", d)),
	} {
		if !errors.As(err, &busy) || busy.Release != "demo" {
			t.Errorf("%s while the release is held: %v, want a *BusyError for demo", what, err)
		}
	}
	if latest, err := c.Latest("demo"); err != nil || latest != nil {
		t.Fatalf("a refused action wrote a record: %+v %v", latest, err)
	}
	if _, err := c.Install(ctx, "other", d); err != nil {
		t.Fatalf("another release while demo is held: %v", err)
	}
	done()
	if _, err := c.Install(ctx, "demo", d); err != nil {
		t.Fatalf("after the hold ended: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

func third[A, B any](_ A, _ B, err error) error { return err }
