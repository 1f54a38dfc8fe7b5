package helm

import (
	"time"

	"helm.sh/helm/v3/pkg/release"
)

// Record is what the latest revision of a release says, for callers that
// follow a release through stages of their own (the cache cleanup of a
// deleted runtime) without importing Helm.
type Record struct {
	// Chart is the name of the release's chart.
	Chart string
	// Deployed: the revision deployed (not failed, pending or being
	// uninstalled).
	Deployed bool
	// Status is Helm's status of the revision, e.g. failed.
	Status string
	// FirstDeployed is when the release was installed, LastDeployed when
	// this revision was.
	FirstDeployed, LastDeployed time.Time
	// Values are the revision's values.
	Values map[string]any
}

// Record returns the latest revision of a release, or nil when there is
// none.
func (c *Client) Record(name string) (*Record, error) {
	rel, err := c.Latest(name)
	if err != nil || rel == nil {
		return nil, err
	}
	r := &Record{Values: rel.Config}
	if rel.Chart != nil && rel.Chart.Metadata != nil {
		r.Chart = rel.Chart.Metadata.Name
	}
	if rel.Info != nil {
		r.Status, r.Deployed = rel.Info.Status.String(), rel.Info.Status == release.StatusDeployed
		r.FirstDeployed, r.LastDeployed = rel.Info.FirstDeployed.Time, rel.Info.LastDeployed.Time
	}
	return r, nil
}
