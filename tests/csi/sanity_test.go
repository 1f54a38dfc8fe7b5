package csi_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubernetes-csi/csi-test/v5/pkg/sanity"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/fusefs"
)

// TestSanity runs csi-sanity in-process against the driver. Volumes point
// at a real FUSE mount, so the lifecycle and idempotency specs publish real
// bind mounts; NodeStageVolume labels a real Node.
func TestSanity(t *testing.T) {
	requireRoot(t)
	socket, _ := startDriver(t)
	base := t.TempDir()
	fuseDir := filepath.Join(base, "fuse")
	if err := os.MkdirAll(fuseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fusefs.Mount(fuseDir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Unmount() }()

	cfg := sanity.NewTestConfig()
	cfg.Address = socket
	cfg.TargetPath = filepath.Join(base, "target")
	cfg.StagingPath = filepath.Join(base, "staging")
	cfg.TestVolumeParameters = map[string]string{
		datav1alpha1.VolumeAttrFluidPath:       fuseDir,
		datav1alpha1.VolumeAttrNodeSelectorKey: "fluid.io/f-sanity-ds",
		datav1alpha1.VolumeAttrFuseCleanPolicy: "OnDemand",
	}
	sanity.Test(t, cfg)
}
