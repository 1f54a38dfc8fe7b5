package csi_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	mount "k8s.io/mount-utils"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	csidriver "github.com/sluice-data/sluice/csi"
	"github.com/sluice-data/sluice/tests/support/fusefs"
)

// TestSymlinkPublishOfARealFuseMount publishes, over gRPC, a volume whose
// PV asks for node_publish_method symlink, served by a real FUSE process:
// the target is a link to the FUSE mount and reads the dataset; when the
// FUSE process dies and a new one mounts, the link reads the new mount
// with no recovery, and recovery never touches it (nor the FUSE mount
// through it); unpublishing removes the link and leaves the FUSE mount.
func TestSymlinkPublishOfARealFuseMount(t *testing.T) {
	requireRoot(t)
	socket, d := startDriver(t)
	nc := nodeClient(t, socket)
	ctx := context.Background()
	base := t.TempDir()
	fuseDir, target := filepath.Join(base, "fuse"), filepath.Join(base, "pod", "mount")
	if err := os.MkdirAll(fuseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	first := startFuse(t, fuseDir)
	pub := &csi.NodePublishVolumeRequest{VolumeId: "linked", TargetPath: target,
		VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: fuseDir, datav1alpha1.VolumeAttrNodePublishMethod: csidriver.PublishSymlink},
		VolumeCapability: &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
			AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER}}}
	if _, err := nc.NodePublishVolume(ctx, pub); err != nil {
		t.Fatal(err)
	}
	if to, err := os.Readlink(target); err != nil || to != fuseDir {
		t.Fatalf("target links to %q (%v), want %s", to, err, fuseDir)
	}
	read := func() (string, error) {
		data, err := os.ReadFile(filepath.Join(target, "hello.txt"))
		return string(data), err
	}
	if got, err := read(); err != nil || got != fusefs.Contents["hello.txt"] {
		t.Fatalf("hello.txt through the link = %q, %v", got, err)
	}

	crashFuse(t, first, fuseDir)
	if _, err := read(); !mount.IsCorruptedMnt(err) {
		t.Fatalf("through the link to a dead FUSE: %v, want ENOTCONN", err)
	}
	if n := d.Recover(ctx); n != 0 {
		t.Fatalf("recovery repaired %d targets; a link has nothing to re-bind", n)
	}
	if n := mountsAt(t, fuseDir); n != 1 {
		t.Fatalf("%d mounts at the FUSE directory after recovery, want the dead one alone", n)
	}
	if err := mount.New("").Unmount(fuseDir); err != nil {
		t.Fatalf("clearing the dead FUSE mount: %v", err)
	}
	startFuse(t, fuseDir)
	if got, err := read(); err != nil || got != fusefs.Contents["hello.txt"] {
		t.Fatalf("hello.txt through the link after the FUSE restarted = %q, %v", got, err)
	}
	if n := d.Recover(ctx); n != 0 {
		t.Fatalf("recovery repaired %d targets", n)
	}

	if _, err := nc.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "linked", TargetPath: target}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Fatalf("the link is still there: %v", err)
	}
	if n := mountsAt(t, fuseDir); n != 1 {
		t.Fatalf("%d mounts at the FUSE directory after unpublishing, want 1: unpublishing unmounted through the link", n)
	}
	if _, err := os.Stat(filepath.Join(fuseDir, "hello.txt")); err != nil {
		t.Fatalf("the FUSE mount after unpublishing: %v", err)
	}
}
