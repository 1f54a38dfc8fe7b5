package helm

import (
	"fmt"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chartutil"
	"k8s.io/client-go/discovery"
)

// ensureCapabilities reads what Helm's actions tell charts of the cluster
// (.Capabilities) once, before the first install or upgrade. Helm fills
// its Configuration's Capabilities on an action's first use without a
// lock, so two releases of one namespace acting at once (two runtimes
// reconciled together) raced on it; the first action of the Client reads
// them here, under the Client's lock, as Helm would have.
func (c *Client) ensureCapabilities() error {
	c.caps.Lock()
	defer c.caps.Unlock()
	if c.cfg.Capabilities != nil {
		return nil
	}
	dc, err := c.cfg.RESTClientGetter.ToDiscoveryClient()
	if err != nil {
		return fmt.Errorf("the discovery client: %w", err)
	}
	dc.Invalidate()
	version, err := dc.ServerVersion()
	if err != nil {
		return fmt.Errorf("the server's version: %w", err)
	}
	apis, err := action.GetVersionSet(dc)
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return fmt.Errorf("the server's API versions: %w", err)
	}
	c.cfg.Capabilities = &chartutil.Capabilities{
		APIVersions: apis,
		KubeVersion: chartutil.KubeVersion{Version: version.GitVersion, Major: version.Major, Minor: version.Minor},
		HelmVersion: chartutil.DefaultCapabilities.HelmVersion,
	}
	return nil
}

// actionConfig is c's Helm configuration for one action: a copy, with a
// release Storage of its own over the same driver. Helm's actions write
// fields of both (an Upgrade sets Releases.MaxHistory on every run), and a
// namespace's releases act at once, so the Client's own is never handed to
// an action. Its capabilities are ensureCapabilities'.
func (c *Client) actionConfig() *action.Configuration {
	cfg := *c.cfg
	releases := *c.cfg.Releases
	cfg.Releases = &releases
	return &cfg
}
