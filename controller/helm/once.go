package helm

import (
	"context"
	"fmt"
	"time"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// InstallOnce installs a release that does not exist and leaves one that
// deployed as it is, whatever its chart's version and values: the release
// of a data operation, whose Job cannot be changed once created. A release
// whose install failed (or that is being uninstalled) is installed again,
// and one of another chart or owner is someone else's (Foreign, owner.go)
// and left alone; an
// install in progress is waited for, unless it was abandoned (pending for
// longer than Timeout allows), which counts as failed. It returns what it found and did.
func (c *Client) InstallOnce(ctx context.Context, name string, d Desired) (State, Action, error) {
	done, err := c.actions.hold(name)
	if err != nil {
		return Pending, ActionWait, err
	}
	defer done()
	return c.installOnce(ctx, name, d)
}

func (c *Client) installOnce(ctx context.Context, name string, d Desired) (State, Action, error) {
	history, err := c.history(name)
	if err != nil {
		return "", "", err
	}
	if len(history) == 0 {
		_, err := c.knowing(name, history).install(ctx, name, d)
		return Absent, ActionInstall, err
	}
	rel := history[0]
	if d.owner().foreign(rel) != "" {
		return Foreign, ActionNone, nil
	}
	if _, err := c.recoverStale(rel); err != nil {
		return Pending, ActionWait, err
	}
	switch {
	case rel.Info != nil && rel.Info.Status == release.StatusDeployed:
		return InSync, ActionNone, nil
	case rel.Info != nil && rel.Info.Status.IsPending():
		return Pending, ActionWait, nil
	}
	if err := c.uninstall(name, history); err != nil {
		return Failed, ActionReinstall, err
	}
	_, err = c.install(ctx, name, d)
	return Failed, ActionReinstall, err
}

// SettleInstall marks deployed an install of o's release (owner.go) that
// its process abandoned (stale.go) after it had created the release's
// workload: the caller saw the workload (an operation's Job or CronJob,
// which Helm creates after the chart's other kinds), so the install had
// got that far and is not run again over a Job that is already working.
// It reports whether it changed the record. A release that is not o's
// (another chart, another owner) is refused with a *ForeignError, in
// whatever state: the caller follows a workload of someone else's
// release.
func (c *Client) SettleInstall(name string, o Owner) (bool, error) {
	return holding(c, name, func() (bool, error) { return c.settleInstall(name, o) })
}

func (c *Client) settleInstall(name string, o Owner) (bool, error) {
	rel, err := c.Latest(name)
	if err != nil || rel == nil {
		return false, err
	}
	if why := o.foreign(rel); why != "" {
		return false, &ForeignError{Release: name, Why: why}
	}
	if rel.Info == nil || rel.Info.Status != release.StatusPendingInstall {
		return false, nil
	}
	if !stale(rel, c.Timeout, time.Now(), c.Writer) {
		return false, nil
	}
	rel.Info.Status = release.StatusDeployed
	rel.Info.Description = fmt.Sprintf("pending-install abandoned (pending since %s, written by controller process %q); its workload exists: taken as deployed",
		rel.Info.LastDeployed.Format(time.RFC3339), rel.Labels[WriterLabel])
	rel.Info.LastDeployed = helmtime.Now()
	if err := c.cfg.Releases.Update(rel); err != nil {
		return false, fmt.Errorf("settling abandoned install of release %s: %w", name, err)
	}
	return true, nil
}
