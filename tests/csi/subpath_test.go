package csi_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/fusefs"
)

// TestReferenceSubPathPublish publishes, over a real FUSE mount, the
// volumes of reference datasets as the controller writes their PVs: the
// referenced Dataset's fluid_path and FUSE label, and a sub-path below it.
// A sub-path of several levels, and one through a symbolic link that stays
// inside the FUSE mount, publish that directory; a sub-path through a link
// leading out of the FUSE mount (to the node's /) is refused, and nothing is
// mounted at the target.
func TestReferenceSubPathPublish(t *testing.T) {
	requireRoot(t)
	socket, _ := startDriver(t)
	nc := nodeClient(t, socket)
	ctx := context.Background()
	base := t.TempDir()
	fuseDir := filepath.Join(base, "fuse")
	if err := os.MkdirAll(fuseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fusefs.Mount(fuseDir)
	if err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs after the unpublishing cleanups.
	t.Cleanup(func() { _ = srv.Unmount() })
	capability := &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}}
	publish := func(name, sub string) (string, error) {
		target := filepath.Join(base, name, "mount")
		vc := map[string]string{
			datav1alpha1.VolumeAttrFluidPath: fuseDir, datav1alpha1.VolumeAttrSubPath: sub,
			datav1alpha1.VolumeAttrNodeSelectorKey:  "fluid.io/f-team-a-imagenet",
			datav1alpha1.VolumeAttrRuntimeNamespace: "team-a", datav1alpha1.VolumeAttrRuntimeName: "imagenet",
		}
		_, err := nc.NodePublishVolume(ctx, &csi.NodePublishVolumeRequest{VolumeId: "team-b-" + name, TargetPath: target,
			StagingTargetPath: filepath.Join(base, "staging"), VolumeCapability: capability, VolumeContext: vc})
		if err == nil {
			t.Cleanup(func() {
				_, _ = nc.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "team-b-" + name, TargetPath: target})
			})
		}
		return target, err
	}

	for _, sub := range []string{"train/2024", "train/latest"} {
		target, err := publish(strings.ReplaceAll(sub, "/", "-"), sub)
		if err != nil {
			t.Fatalf("publishing sub-path %s: %v", sub, err)
		}
		data, err := os.ReadFile(filepath.Join(target, "part-0.txt"))
		if err != nil || string(data) != fusefs.Contents["train/2024/part-0.txt"] {
			t.Fatalf("sub-path %s: reading part-0.txt through the target: %q %v", sub, data, err)
		}
	}

	target, err := publish("escape", "escape")
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "leads out of its FUSE mount") {
		t.Fatalf("publishing a sub-path that leads out of the FUSE mount: %v", err)
	}
	if entries, _ := os.ReadDir(target); len(entries) > 0 {
		t.Fatalf("something is mounted at the refused target: %v", entries)
	}
}
