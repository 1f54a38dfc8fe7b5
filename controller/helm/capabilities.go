package helm

import (
	"fmt"
	"sync"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chartutil"
	"k8s.io/client-go/discovery"
)

// capabilities are what Helm's actions tell charts of the cluster
// (.Capabilities), read once; shared by the copies knowing makes.
type capabilities struct {
	mu   sync.Mutex
	caps *chartutil.Capabilities
}

// get returns the capabilities read so far (nil: none yet).
func (c *capabilities) get() *chartutil.Capabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caps
}

// ensureCapabilities reads what Helm's actions tell charts of the cluster
// (.Capabilities) once, before the first install or upgrade. Helm fills
// its Configuration's Capabilities on an action's first use without a
// lock, so two releases of one namespace acting at once (two runtimes
// reconciled together) raced on it; the first action of the Client reads
// them here, under the capabilities' lock, into the capabilities every
// action's configuration is given (actionConfig). The Client's own
// configuration is never written after it is made: actions and copies
// read it at any time.
func (c *Client) ensureCapabilities() error {
	c.caps.mu.Lock()
	defer c.caps.mu.Unlock()
	if c.caps.caps != nil {
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
	c.caps.caps = &chartutil.Capabilities{
		APIVersions: apis,
		KubeVersion: chartutil.KubeVersion{Version: version.GitVersion, Major: version.Major, Minor: version.Minor},
		HelmVersion: chartutil.DefaultCapabilities.HelmVersion,
	}
	return nil
}

// actionConfig is c's Helm configuration for one action: a copy, with a
// release Storage of its own over the same driver and the capabilities
// ensureCapabilities read. Helm's actions write fields of both (an
// Upgrade sets Releases.MaxHistory on every run), and a namespace's
// releases act at once, so the Client's own is never handed to an action.
func (c *Client) actionConfig() *action.Configuration {
	cfg := *c.cfg
	releases := *c.cfg.Releases
	cfg.Releases = &releases
	if caps := c.caps.get(); caps != nil {
		cfg.Capabilities = caps
	}
	return &cfg
}
