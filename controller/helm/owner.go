package helm

import (
	"fmt"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/release"
)

// OwnerLabel is the label of a release record naming the object the
// release belongs to (Desired.Owner, Owner.ID; the object's UID): an
// install stamps it, and upgrades keep it.
const OwnerLabel = "data.sluice.io/helm-owner"

// Owner is the object acting on a release, as the actions that can change
// or remove a release someone else has check it: a release is the
// owner's when its chart is one of Charts and its records name no other
// owner (OwnerLabel). A release that is not is Foreign: it is neither
// upgraded, rolled back, reinstalled, settled nor uninstalled, and the
// caller reports the conflict on its object.
type Owner struct {
	// Charts are the names of the charts the owner's releases are of.
	Charts []string
	// ID identifies the object (its UID). A record stamped with another
	// ID, or with one when ID is "", is someone else's; a record with no
	// stamp (written before records carried one) is judged by its chart.
	ID string
}

// owner is the Owner of the release d deploys.
func (d Desired) owner() Owner {
	o := Owner{ID: d.Owner}
	if d.Chart != nil && d.Chart.Metadata != nil {
		o.Charts = []string{d.Chart.Metadata.Name}
	}
	return o
}

// foreign says why rel is not o's, or "" when it is (or there is none).
// A record with no chart metadata is judged by its owner stamp only.
func (o Owner) foreign(rel *release.Release) string {
	if rel == nil {
		return ""
	}
	if rel.Chart != nil && rel.Chart.Metadata != nil && !slices.Contains(o.Charts, rel.Chart.Metadata.Name) {
		return fmt.Sprintf("it is of chart %q, not %s", rel.Chart.Metadata.Name, chartNames(o.Charts))
	}
	if id := rel.Labels[OwnerLabel]; id != "" && id != o.ID {
		return fmt.Sprintf("its records name another owner (%s %s)", OwnerLabel, id)
	}
	return ""
}

func chartNames(charts []string) string {
	if len(charts) == 0 {
		return "one of the caller's"
	}
	quoted := make([]string, len(charts))
	for i, c := range charts {
		quoted[i] = fmt.Sprintf("%q", c)
	}
	return strings.Join(quoted, " or ")
}

// ForeignError is the error of an action refused because the release of
// that name is someone else's (Owner).
type ForeignError struct {
	// Release is the release's name; Why says whose it is not.
	Release, Why string
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("release %s belongs to someone else (%s); Sluice neither changes nor removes it", e.Release, e.Why)
}

// checkOwner returns a *ForeignError when the latest record of history is
// not o's.
func checkOwner(name string, history []*release.Release, o Owner) error {
	if len(history) == 0 {
		return nil
	}
	if why := o.foreign(history[0]); why != "" {
		return &ForeignError{Release: name, Why: why}
	}
	return nil
}

// labels are the labels an install or upgrade of d stamps on its record:
// the writer (stale.go) and the owner.
func (c *Client) labels(d Desired) map[string]string {
	l := c.writerLabels()
	if d.Owner != "" {
		if l == nil {
			l = map[string]string{}
		}
		l[OwnerLabel] = d.Owner
	}
	return l
}
