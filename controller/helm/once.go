package helm

import (
	"context"

	"helm.sh/helm/v3/pkg/release"
)

// InstallOnce installs a release that does not exist and leaves one that
// deployed as it is, whatever its chart and values: the release of a data
// operation, whose Job cannot be changed once created. A release whose
// install failed (or that is being uninstalled) is installed again, and
// one of another chart is someone else's (Foreign) and left alone; an
// install in progress is waited for, unless it was abandoned (pending for
// longer than Timeout allows), which counts as failed. It returns what it found and did.
func (c *Client) InstallOnce(ctx context.Context, name string, d Desired) (State, Action, error) {
	history, err := c.history(name)
	if err != nil {
		return "", "", err
	}
	if len(history) == 0 {
		_, err := c.knowing(name, history).Install(ctx, name, d)
		return Absent, ActionInstall, err
	}
	rel := history[0]
	if !sameChartName(rel.Chart, d.Chart) {
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
	if err := c.Uninstall(name); err != nil {
		return Failed, ActionReinstall, err
	}
	_, err = c.Install(ctx, name, d)
	return Failed, ActionReinstall, err
}
