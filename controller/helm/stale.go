package helm

import (
	"fmt"
	"time"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// staleAfter is how long past the action's Timeout a pending release
// record is taken to be abandoned: the process that wrote it would have
// finished or failed it by then.
const staleAfter = time.Minute

// stale reports whether rel is pending (an install, upgrade or rollback
// in progress) since longer than timeout allows: its process died
// between writing the pending record and the outcome (OOM, SIGKILL, a
// lost leader election), and nothing else will ever finish it.
func stale(rel *release.Release, timeout time.Duration, now time.Time) bool {
	if rel == nil || rel.Info == nil || !rel.Info.Status.IsPending() {
		return false
	}
	return now.Sub(rel.Info.LastDeployed.Time) > timeout+staleAfter
}

// recoverStale marks an abandoned pending release record failed, so that
// the release is rolled back or installed again like any failed one. It
// reports whether it did.
func (c *Client) recoverStale(rel *release.Release) (bool, error) {
	if !stale(rel, c.Timeout, time.Now()) {
		return false, nil
	}
	was := rel.Info.Status
	rel.Info.Status = release.StatusFailed
	rel.Info.Description = fmt.Sprintf("%s abandoned: pending since %s, longer than the %v an action may take", was, rel.Info.LastDeployed.Format(time.RFC3339), c.Timeout)
	rel.Info.LastDeployed = helmtime.Now()
	if err := c.cfg.Releases.Update(rel); err != nil {
		return false, fmt.Errorf("marking abandoned release %s (%s) failed: %w", rel.Name, was, err)
	}
	return true, nil
}
