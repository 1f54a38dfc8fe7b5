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
	mount "k8s.io/mount-utils"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/fusefs"
)

// TestRepublishChecksWhatIsMounted: publishing to a target that is already
// a mount point succeeds only for the same volume, source and mode (audit
// L10: it used to succeed for anything mounted there). Another volume, a
// writable publish of a read-only one, or a foreign mount at the target is
// AlreadyExists; a publish whose record was lost (its save failed) is
// recognised by the mount's root and recorded again.
func TestRepublishChecksWhatIsMounted(t *testing.T) {
	requireRoot(t)
	socket, _ := startDriver(t)
	state := filepath.Join(filepath.Dir(socket), "state", "published")
	nc := nodeClient(t, socket)
	ctx := context.Background()
	base := t.TempDir()
	fuseDir, target := filepath.Join(base, "fuse"), filepath.Join(base, "pod", "mount")
	if err := os.MkdirAll(fuseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fusefs.Mount(fuseDir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Unmount() }()
	ro := &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}}
	rw := &csi.VolumeCapability{AccessType: ro.AccessType,
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER}}
	publish := func(id, sub string, capability *csi.VolumeCapability, at string) error {
		_, err := nc.NodePublishVolume(ctx, &csi.NodePublishVolumeRequest{VolumeId: id, TargetPath: at, VolumeCapability: capability,
			VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: fuseDir, datav1alpha1.VolumeAttrSubPath: sub}})
		return err
	}
	unpublish := func(at string) {
		if _, err := nc.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "team-a-imagenet", TargetPath: at}); err != nil {
			t.Fatal(err)
		}
	}

	if err := publish("team-a-imagenet", "train", ro, target); err != nil {
		t.Fatal(err)
	}
	if err := publish("team-a-imagenet", "train", ro, target); err != nil {
		t.Fatalf("the same publish again: %v", err)
	}
	for _, c := range []struct {
		name, id, sub string
		capability    *csi.VolumeCapability
	}{
		{"another volume", "team-b-coco", "train", ro},
		{"another sub-path", "team-a-imagenet", "val", ro},
		{"writable", "team-a-imagenet", "train", rw},
	} {
		if err := publish(c.id, c.sub, c.capability, target); status.Code(err) != codes.AlreadyExists || !strings.Contains(err.Error(), "already publishes volume team-a-imagenet") {
			t.Errorf("%s at a published target: %v, want AlreadyExists naming what is there", c.name, err)
		}
	}

	// The record is lost (its save failed after the bind mount): the mount
	// is recognised, and recorded again for recovery.
	records, _ := filepath.Glob(filepath.Join(state, "*.json"))
	if len(records) != 1 {
		t.Fatalf("records %v, want one", records)
	}
	if err := os.Remove(records[0]); err != nil {
		t.Fatal(err)
	}
	if err := publish("team-a-imagenet", "val", ro, target); status.Code(err) != codes.AlreadyExists || !strings.Contains(err.Error(), "not of "+filepath.Join(fuseDir, "val")) {
		t.Errorf("another sub-path at an unrecorded target: %v, want AlreadyExists", err)
	}
	if err := publish("team-a-imagenet", "train", ro, target); err != nil {
		t.Fatalf("the same publish with its record lost: %v", err)
	}
	if records, _ := filepath.Glob(filepath.Join(state, "*.json")); len(records) != 1 {
		t.Errorf("records after the republish: %v, want the one written again", records)
	}
	unpublish(target)

	// Something else is mounted at the target.
	foreign, other := filepath.Join(base, "foreign"), filepath.Join(base, "pod", "other")
	for _, d := range []string{foreign, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := mount.New("").Mount(foreign, other, "", []string{"bind"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mount.New("").Unmount(other) })
	if err := publish("team-a-imagenet", "train", ro, other); status.Code(err) != codes.AlreadyExists {
		t.Errorf("a target holding a foreign mount: %v, want AlreadyExists", err)
	}
}
