package helm

import (
	"slices"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
)

// knownHistory is a storage driver that answers the query for one
// release's history with the records Ensure has just read, so that an
// install does not list them a second time (Helm checks the name is free
// before installing). After any write, and for any other query, it asks
// the driver it wraps.
type knownHistory struct {
	driver.Driver
	name    string
	history []*release.Release
	written bool
}

// Query implements driver.Queryor.
func (k *knownHistory) Query(labels map[string]string) ([]*release.Release, error) {
	if k.written || len(labels) != 2 || labels["name"] != k.name || labels["owner"] != "helm" {
		return k.Driver.Query(labels)
	}
	if len(k.history) == 0 {
		return nil, driver.ErrReleaseNotFound
	}
	// Callers sort the result in place.
	return slices.Clone(k.history), nil
}

// Create implements driver.Creator.
func (k *knownHistory) Create(key string, rls *release.Release) error {
	k.written = true
	return k.Driver.Create(key, rls)
}

// Update implements driver.Updator.
func (k *knownHistory) Update(key string, rls *release.Release) error {
	k.written = true
	return k.Driver.Update(key, rls)
}

// Delete implements driver.Deletor.
func (k *knownHistory) Delete(key string) (*release.Release, error) {
	k.written = true
	return k.Driver.Delete(key)
}

// knowing returns a copy of c whose release storage answers the history
// query for name with history (as just read) until something is written.
func (c *Client) knowing(name string, history []*release.Release) *Client {
	cfg := *c.cfg
	releases := storage.Init(&knownHistory{Driver: c.cfg.Releases.Driver, name: name, history: history})
	releases.MaxHistory, releases.Log = c.cfg.Releases.MaxHistory, c.cfg.Releases.Log
	cfg.Releases = releases
	cc := *c
	cc.cfg = &cfg
	return &cc
}
