package helm

import (
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/release"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Helm keeps a release's records (its revisions, each with the manifest it
// applied) in Secrets of the release's namespace, which that namespace's
// users may be allowed to edit. An upgrade deletes the objects of the
// stored manifest the new one no longer has, an uninstall deletes all of
// them and a rollback applies a stored manifest again, all with the
// controller's identity: a record edited to name objects of another
// namespace would have the controller delete or write them there. So
// before Helm acts on its records, trustStored drops from every stored
// manifest each object the guard would refuse of a rendered one (guard.go),
// and writes the record back: Helm then touches only what the engine's
// chart could have created.

// trustStored sanitises the records of the named release, its history
// as just read (see above), and logs each object it dropped.
func (c *Client) trustStored(name string, history []*release.Release) error {
	g := c.guard().(guard)
	for _, rel := range history {
		kept, dropped, err := g.filter(rel.Manifest)
		if err != nil {
			return fmt.Errorf("reading the stored manifest of release %s revision %d: %w", name, rel.Version, err)
		}
		if len(dropped) == 0 {
			continue
		}
		rel.Manifest = kept
		if err := c.cfg.Releases.Update(rel); err != nil {
			return fmt.Errorf("dropping objects from the stored manifest of release %s revision %d: %w", name, rel.Version, err)
		}
		c.logf("release %s revision %d: its stored record named objects the engine chart never creates, which Helm now leaves alone: %s",
			name, rel.Version, strings.Join(dropped, "; "))
	}
	return nil
}

// filter splits a manifest into the documents the guard allows, joined as
// Helm joins them, and the reasons it refuses the others.
func (g guard) filter(manifest string) (kept string, dropped []string, err error) {
	var docs []string
	err = EachObject(manifest, func(doc []byte, u *unstructured.Unstructured) {
		if why := g.check(u); why != "" {
			dropped = append(dropped, why)
			return
		}
		docs = append(docs, strings.TrimSpace(string(doc)))
	})
	if err != nil || len(dropped) == 0 {
		return manifest, nil, err
	}
	return strings.Join(docs, "\n---\n"), dropped, nil
}

func (c *Client) logf(format string, args ...any) {
	if c.cfg.Log != nil {
		c.cfg.Log(format, args...)
	}
}
