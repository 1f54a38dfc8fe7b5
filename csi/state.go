package csi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var metav1PatchOptions = metav1.PatchOptions{FieldManager: "sluice-csi"}

// stagedVolume is what NodeStageVolume records for NodeUnstageVolume, which
// is not given the volume context.
type stagedVolume struct {
	FluidPath        string `json:"fluidPath"`
	LabelKey         string `json:"labelKey,omitempty"`
	CleanPolicy      string `json:"cleanPolicy,omitempty"`
	RuntimeNamespace string `json:"runtimeNamespace,omitempty"`
	RuntimeName      string `json:"runtimeName,omitempty"`
	// FuseGeneration is the FUSE DaemonSet's generation at staging
	// (cleanPolicy OnFuseChanged).
	FuseGeneration int64 `json:"fuseGeneration,omitempty"`
}

func (d *Driver) statePath(volumeID string) string {
	return filepath.Join(d.cfg.StateDir, strings.ReplaceAll(volumeID, "/", "_")+".json")
}

func (d *Driver) saveState(volumeID string, s stagedVolume) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.cfg.StateDir, 0o750); err != nil {
		return err
	}
	tmp := d.statePath(volumeID) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, d.statePath(volumeID))
}

func (d *Driver) loadState(volumeID string) (stagedVolume, bool, error) {
	data, err := os.ReadFile(d.statePath(volumeID))
	if errors.Is(err, fs.ErrNotExist) {
		return stagedVolume{}, false, nil
	}
	if err != nil {
		return stagedVolume{}, false, err
	}
	var s stagedVolume
	if err := json.Unmarshal(data, &s); err != nil {
		return stagedVolume{}, false, fmt.Errorf("state of volume %s: %w", volumeID, err)
	}
	return s, true, nil
}

func (d *Driver) removeState(volumeID string) error {
	err := os.Remove(d.statePath(volumeID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
