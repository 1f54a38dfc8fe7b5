package helm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
)

// State classifies a release against what is desired.
type State string

const (
	// Absent: no release of that name exists.
	Absent State = "Absent"
	// Pending: an install, upgrade or rollback is in progress.
	Pending State = "Pending"
	// Failed: the latest revision failed.
	Failed State = "Failed"
	// OutOfSync: deployed, but with another chart version or other values.
	OutOfSync State = "OutOfSync"
	// InSync: deployed with the desired chart and values.
	InSync State = "InSync"
	// Foreign: a release of that name exists of another chart, or
	// stamped with another owner (owner.go): someone else's, which Sluice
	// neither upgrades nor uninstalls.
	Foreign State = "Foreign"
)

// Action is what to do about a state.
type Action string

const (
	// ActionInstall installs the release.
	ActionInstall Action = "Install"
	// ActionUpgrade upgrades the release to the desired chart and values.
	ActionUpgrade Action = "Upgrade"
	// ActionRollback rolls back to the last good revision.
	ActionRollback Action = "Rollback"
	// ActionReinstall uninstalls a release that never deployed, then installs.
	ActionReinstall Action = "Reinstall"
	// ActionWait waits for an operation in progress.
	ActionWait Action = "Wait"
	// ActionNone does nothing.
	ActionNone Action = "None"
)

// Desired is the chart and values a release should have, and whose it is.
type Desired struct {
	Chart  *chart.Chart
	Values map[string]any
	// Owner identifies the object the release belongs to (its UID): an
	// install stamps it on the release's records (OwnerLabel), and a
	// release whose records name another is Foreign. "" stamps none, and
	// then only a release of another chart, or one stamped with any
	// owner, is Foreign.
	Owner string
}

// Classify returns the state of rel (nil: absent) against desired.
func Classify(rel *release.Release, desired Desired) State {
	switch {
	case rel == nil || rel.Info == nil:
		return Absent
	case desired.owner().foreign(rel) != "":
		return Foreign
	case rel.Info.Status.IsPending():
		return Pending
	case rel.Info.Status == release.StatusFailed:
		return Failed
	case rel.Info.Status != release.StatusDeployed:
		return OutOfSync // superseded, uninstalled, unknown: deploy again
	case !sameChart(rel.Chart, desired.Chart) || !sameValues(rel.Config, desired.Values):
		return OutOfSync
	}
	return InSync
}

// Next returns the action for a state. A failed release rolls back when an
// earlier revision deployed (history has more than the failed one), and is
// reinstalled when it never did; so is one whose latest revision was being
// or has been uninstalled.
func Next(state State, rel *release.Release) Action {
	switch state {
	case Absent:
		return ActionInstall
	case Pending:
		return ActionWait
	case Failed:
		if rel != nil && rel.Version > 1 {
			return ActionRollback
		}
		return ActionReinstall
	case OutOfSync:
		if rel != nil && rel.Info != nil && rel.Info.Status != release.StatusDeployed && rel.Info.Status != release.StatusSuperseded {
			// Helm upgrades only from a deployed revision or a latest one
			// that failed or was superseded: a release left uninstalling
			// (an uninstall cut short, as a reinstall's can be) or
			// uninstalled would fail "has no deployed releases" for ever.
			return ActionReinstall
		}
		return ActionUpgrade
	}
	return ActionNone
}

func sameChart(a, b *chart.Chart) bool {
	if a == nil || b == nil || a.Metadata == nil || b.Metadata == nil {
		return a == b
	}
	return chartDigest(a) == chartDigest(b)
}

// chartDigest identifies a chart by name, version and templates, so that
// a new Sluice whose embedded chart changed upgrades releases even when
// the chart's version was not bumped.
func chartDigest(c *chart.Chart) string {
	h := sha256.New()
	if c.Metadata != nil {
		h.Write([]byte(c.Metadata.Name + "\x00" + c.Metadata.Version + "\x00"))
	}
	templates := slices.Clone(c.Templates)
	slices.SortFunc(templates, func(a, b *chart.File) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range templates {
		h.Write([]byte(t.Name + "\x00"))
		h.Write(t.Data)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sameValues compares values the way they are stored: as JSON, so that an
// int and the float64 it becomes after a round trip compare equal.
func sameValues(a, b map[string]any) bool {
	return reflect.DeepEqual(normalise(a), normalise(b))
}

func normalise(m map[string]any) any {
	if len(m) == 0 {
		return map[string]any{}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return m
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return m
	}
	return out
}
