package csi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// published is a bind mount (or symbolic link) NodePublishVolume made, kept on disk so that
// the recovery loop can re-bind it after the FUSE behind it restarts, also
// across restarts of the plugin.
type published struct {
	VolumeID     string `json:"volumeID"`
	Target       string `json:"target"`
	Source       string `json:"source"`
	FluidPath    string `json:"fluidPath"`
	ReadOnly     bool   `json:"readOnly,omitempty"`
	PodNamespace string `json:"podNamespace,omitempty"`
	PodName      string `json:"podName,omitempty"`
	// Symlink says the target is a symbolic link to Source (PublishSymlink):
	// recovery leaves it alone, unpublishing removes the link.
	Symlink bool `json:"symlink,omitempty"`
}

func (d *Driver) publishedPath(target string) string {
	sum := sha256.Sum256([]byte(target))
	return filepath.Join(d.cfg.StateDir, "published", hex.EncodeToString(sum[:16])+".json")
}

func (d *Driver) savePublished(p published) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	path := d.publishedPath(p.Target)
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", data, 0o600); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

func (d *Driver) removePublished(target string) error {
	err := os.Remove(d.publishedPath(target))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// listPublished returns the recorded bind mounts, sorted by target.
func (d *Driver) listPublished() ([]published, error) {
	files, err := filepath.Glob(filepath.Join(d.cfg.StateDir, "published", "*.json"))
	if err != nil {
		return nil, err
	}
	var out []published
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		var p published
		if err := json.Unmarshal(data, &p); err != nil {
			continue // a torn file: publish rewrites it, unpublish removes it
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out, nil
}
