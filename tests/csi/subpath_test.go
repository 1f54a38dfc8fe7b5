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
	"github.com/sluice-data/sluice/tests/support/fusefs"
)

// TestReferenceSubPathPublish publishes, over a real FUSE mount, the
// volumes of reference datasets as the controller writes their PVs: the
// referenced Dataset's fluid_path and FUSE label, and a sub-path below it.
// A sub-path of several levels publishes that directory. A sub-path that
// is a symbolic link is refused, whether it leads out of the FUSE mount (to
// the node's /) or stays inside it (audit N2: no link in a dataset's path
// is followed), and nothing is mounted at the target.
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

	target, err := publish("train-2024", "train/2024")
	if err != nil {
		t.Fatalf("publishing sub-path train/2024: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(target, "part-0.txt"))
	if err != nil || string(data) != fusefs.Contents["train/2024/part-0.txt"] {
		t.Fatalf("sub-path train/2024: reading part-0.txt through the target: %q %v", data, err)
	}

	for _, sub := range []string{"escape", "train/latest"} {
		target, err := publish(strings.ReplaceAll(sub, "/", "-"), sub)
		if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("publishing sub-path %s, a symbolic link: %v", sub, err)
		}
		if n := mountsAt(t, target); n != 0 {
			t.Fatalf("sub-path %s: %d mount(s) at the refused target", sub, n)
		}
	}
}
