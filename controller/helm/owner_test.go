package helm

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// readOnly are the exported methods of *Client that write no release
// record, and Store, which tests plant records with.
var readOnly = map[string]bool{"Latest": true, "Record": true, "Store": true}

// ownerActions are the exported methods of *Client that act on a release,
// each run as the owner ours against someone else's release; each returns
// what it reported of the release ("" when it said it is not ours).
var ownerActions = map[string]func(c *Client, ours Desired) string{
	"Install": func(c *Client, ours Desired) string {
		if _, err := c.Install(context.Background(), "logs", ours); err == nil {
			return "installed"
		}
		return "" // Helm refuses a name in use
	},
	"Upgrade": func(c *Client, ours Desired) string {
		_, err := c.Upgrade(context.Background(), "logs", ours)
		if foreign := (*ForeignError)(nil); errors.As(err, &foreign) {
			return ""
		}
		return fmt.Sprintf("upgrade: %v", err)
	},
	"Ensure": func(c *Client, ours Desired) string {
		if state, act, err := c.Ensure(context.Background(), "logs", ours); state != Foreign || act != ActionNone || err != nil {
			return fmt.Sprintf("ensure: %s/%s %v", state, act, err)
		}
		return ""
	},
	"InstallOnce": func(c *Client, ours Desired) string {
		if state, act, err := c.InstallOnce(context.Background(), "logs", ours); state != Foreign || act != ActionNone || err != nil {
			return fmt.Sprintf("install once: %s/%s %v", state, act, err)
		}
		return ""
	},
	"UninstallOwned": func(c *Client, ours Desired) string {
		if foreign, err := c.UninstallOwned("logs", ours.owner()); !foreign || err != nil {
			return fmt.Sprintf("uninstall: foreign %v, %v", foreign, err)
		}
		return ""
	},
	"UninstallChart": func(c *Client, ours Desired) string {
		if foreign, err := c.UninstallChart("logs", ours.Chart.Metadata.Name); !foreign || err != nil {
			return fmt.Sprintf("uninstall: foreign %v, %v", foreign, err)
		}
		return ""
	},
	"SettleInstall": func(c *Client, ours Desired) string {
		settled, err := c.SettleInstall("logs", ours.owner())
		if foreign := (*ForeignError)(nil); !settled && errors.As(err, &foreign) {
			return ""
		}
		return fmt.Sprintf("settle: %v, %v", settled, err)
	},
}

// TestEveryActionIsChecked: every exported method of *Client either reads
// only or is an action TestEveryActionLeavesSomeoneElsesReleaseAlone runs;
// a new one must join one list (an action with its proof below).
func TestEveryActionIsChecked(t *testing.T) {
	typ := reflect.TypeOf(&Client{})
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		if !readOnly[name] && ownerActions[name] == nil {
			t.Errorf("(*Client).%s is neither read-only nor among the actions checked against someone else's release: add it to ownerActions", name)
		}
	}
	for name := range ownerActions {
		if _, ok := typ.MethodByName(name); !ok {
			t.Errorf("ownerActions names (*Client).%s, which does not exist", name)
		}
	}
}

// TestEveryActionLeavesSomeoneElsesReleaseAlone (reliability audit N3):
// whatever an action is asked to do, a release of that name of another
// chart, or stamped with another owner (or with one, when the caller
// names none), is reported as not the caller's and left exactly as it
// was: deployed, failed after a deployed revision (what a rollback or a
// reinstall follows), or left pending-install by a dead process (what
// SettleInstall and the takeover of abandoned records act on).
func TestEveryActionLeavesSomeoneElsesReleaseAlone(t *testing.T) {
	theirChart := demoChart("9.9.9")
	theirChart.Metadata.Name = "their-app"
	owners := []struct {
		name       string
		theirChart string // the chart of their release
		theirOwner string // their records' OwnerLabel
		ourOwner   string // Desired.Owner of the caller
	}{
		{"another chart", "their-app", "", "uid-ours"},
		{"another chart, a caller with no owner", "their-app", "", ""},
		{"another owner", "demo", "uid-theirs", "uid-ours"},
		{"an owner, a caller with none", "demo", "uid-theirs", ""},
	}
	states := map[string][]release.Status{
		"deployed":               {release.StatusDeployed},
		"failed after deployed":  {release.StatusDeployed, release.StatusFailed},
		"pending, writer gone":   {release.StatusPendingInstall},
		"superseded then failed": {release.StatusSuperseded, release.StatusFailed},
	}
	for _, o := range owners {
		for stateName, statuses := range states {
			for action, run := range ownerActions {
				t.Run(o.name+"/"+stateName+"/"+action, func(t *testing.T) {
					c := NewMemoryClient("team-a", nil)
					c.Writer = NewWriter()
					for i, st := range statuses {
						r := rel(i+1, st, "9.9.9", map[string]any{"replicas": 7})
						r.Chart.Metadata.Name = o.theirChart
						r.Name, r.Namespace = "logs", "team-a"
						r.Manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: theirs\n"
						r.Info.LastDeployed = helmtime.Time{Time: time.Now().Add(-time.Hour)}
						r.Labels = map[string]string{WriterLabel: NewWriter()}
						if o.theirOwner != "" {
							r.Labels[OwnerLabel] = o.theirOwner
						}
						if err := c.Store(r); err != nil {
							t.Fatal(err)
						}
					}
					before := snapshot(t, c)
					ours := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}, Owner: o.ourOwner}
					// This process deployed ours before: a rollback has
					// something to restore.
					c.good.remember("logs", ours)
					if got := run(c, ours); got != "" {
						t.Errorf("the action took someone else's release for the caller's: %s", got)
					}
					if after := snapshot(t, c); after != before {
						t.Errorf("someone else's release changed:\nbefore %s\nafter  %s", before, after)
					}
				})
			}
		}
	}
}

// snapshot describes every record of release logs.
func snapshot(t *testing.T, c *Client) string {
	t.Helper()
	history, err := c.history("logs")
	if err != nil {
		t.Fatal(err)
	}
	s := ""
	for _, r := range history {
		s += fmt.Sprintf("[v%d %s %s %v %q %s] ", r.Version, r.Info.Status, r.Chart.Metadata.Name, r.Config, r.Manifest, r.Labels[OwnerLabel])
	}
	return s
}

// TestOwnedReleasesAreStampedAndActedOn: an install stamps its owner on
// the record, upgrades keep it, and the owner's actions proceed: an
// unstamped release of the chart (written before records carried owners)
// is the owner's too.
func TestOwnedReleasesAreStampedAndActedOn(t *testing.T) {
	ctx := context.Background()
	c := NewMemoryClient("team-a", nil)
	ours := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}, Owner: "uid-ours"}
	if state, act, err := c.InstallOnce(ctx, "logs", ours); err != nil || state != Absent || act != ActionInstall {
		t.Fatalf("install once: %s/%s %v", state, act, err)
	}
	ours.Values = map[string]any{"replicas": 2}
	if _, err := c.Upgrade(ctx, "logs", ours); err != nil {
		t.Fatal(err)
	}
	latest, err := c.Latest("logs")
	if err != nil || latest.Version != 2 || latest.Labels[OwnerLabel] != "uid-ours" {
		t.Fatalf("after the upgrade: %+v %v, want revision 2 stamped uid-ours", latest, err)
	}
	if foreign, err := c.UninstallOwned("logs", ours.owner()); err != nil || foreign {
		t.Fatalf("the owner's uninstall: foreign %v, %v", foreign, err)
	}
	if latest, err := c.Latest("logs"); err != nil || latest != nil {
		t.Fatalf("after the owner's uninstall: %+v %v", latest, err)
	}

	unstamped := rel(1, release.StatusDeployed, "0.1.0", map[string]any{"replicas": 1})
	unstamped.Name, unstamped.Namespace = "old", "team-a"
	if err := c.Store(unstamped); err != nil {
		t.Fatal(err)
	}
	if state, act, err := c.InstallOnce(ctx, "old", ours); err != nil || state != InSync || act != ActionNone {
		t.Fatalf("install once over an unstamped release of the chart: %s/%s %v, want InSync/None", state, act, err)
	}
	if foreign, err := c.UninstallOwned("old", ours.owner()); err != nil || foreign {
		t.Fatalf("uninstalling an unstamped release of the chart: foreign %v, %v", foreign, err)
	}
}
