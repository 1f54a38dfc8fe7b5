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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	mount "k8s.io/mount-utils"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/fusefs"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

func nodeClient(t *testing.T, socket string) csi.NodeClient {
	t.Helper()
	return csi.NewNodeClient(dial(t, socket))
}

func nodeLabels(t *testing.T) map[string]string {
	t.Helper()
	n := &corev1.Node{}
	if err := env.Client.Get(testenv.Context(t), types.NamespacedName{Name: nodeName}, n); err != nil {
		t.Fatal(err)
	}
	return n.Labels
}

// TestStagePublishReadUnpublishUnstage walks one dataset volume through its
// life on a node with real mounts: staging labels the node, publishing
// waits for the FUSE mount and bind-mounts the sub-path read-only, the Pod's
// view reads the dataset's files, and unstaging with cleanPolicy OnDemand
// removes the label once nothing is published.
func TestStagePublishReadUnpublishUnstage(t *testing.T) {
	requireRoot(t)
	socket, _ := startDriver(t)
	nc := nodeClient(t, socket)
	ctx := context.Background()
	base := t.TempDir()
	fuseDir, target, staging := filepath.Join(base, "fuse"), filepath.Join(base, "pod", "mount"), filepath.Join(base, "staging")
	for _, d := range []string{fuseDir, staging} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const labelKey = "fluid.io/f-team-a-imagenet"
	vc := map[string]string{
		datav1alpha1.VolumeAttrFluidPath: fuseDir, datav1alpha1.VolumeAttrSubPath: "train",
		datav1alpha1.VolumeAttrNodeSelectorKey: labelKey, datav1alpha1.VolumeAttrFuseCleanPolicy: "OnDemand",
	}
	capability := &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}}

	if _, err := nc.NodeStageVolume(ctx, &csi.NodeStageVolumeRequest{VolumeId: "team-a-imagenet", StagingTargetPath: staging, VolumeCapability: capability, VolumeContext: vc}); err != nil {
		t.Fatal(err)
	}
	if nodeLabels(t)[labelKey] != "true" {
		t.Fatalf("NodeStageVolume did not label the node for FUSE: %v", nodeLabels(t))
	}

	// No FUSE yet: publishing waits and then says why.
	pub := &csi.NodePublishVolumeRequest{VolumeId: "team-a-imagenet", StagingTargetPath: staging, TargetPath: target, VolumeCapability: capability, VolumeContext: vc}
	if _, err := nc.NodePublishVolume(ctx, pub); status.Code(err) != codes.DeadlineExceeded || !strings.Contains(err.Error(), "FUSE mount at "+fuseDir+" is not ready") {
		t.Fatalf("publish without FUSE: %v", err)
	}

	// The runtime's FUSE pod mounts the dataset.
	srv, err := fusefs.Mount(fuseDir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Unmount() }()
	if _, err := nc.NodePublishVolume(ctx, pub); err != nil {
		t.Fatalf("publish: %v", err)
	}
	if _, err := nc.NodePublishVolume(ctx, pub); err != nil {
		t.Fatalf("publishing again must succeed (idempotent): %v", err)
	}
	data, err := os.ReadFile(filepath.Join(target, "data.txt"))
	if err != nil || string(data) != fusefs.Contents["train/data.txt"] {
		t.Fatalf("reading through the target: %q %v", data, err)
	}
	if err := os.WriteFile(filepath.Join(target, "new.txt"), []byte("x"), 0o644); err == nil {
		t.Fatal("a read-only publish accepted a write")
	}

	// Unstaging while published is refused: a Pod still reads the dataset.
	unstage := &csi.NodeUnstageVolumeRequest{VolumeId: "team-a-imagenet", StagingTargetPath: staging}
	if _, err := nc.NodeUnstageVolume(ctx, unstage); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("unstage while published: %v", err)
	}

	unpub := &csi.NodeUnpublishVolumeRequest{VolumeId: "team-a-imagenet", TargetPath: target}
	if _, err := nc.NodeUnpublishVolume(ctx, unpub); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("target still there after unpublish: %v", err)
	}
	if _, err := nc.NodeUnpublishVolume(ctx, unpub); err != nil {
		t.Fatalf("unpublishing a missing target must succeed: %v", err)
	}
	if _, err := nc.NodeUnstageVolume(ctx, unstage); err != nil {
		t.Fatal(err)
	}
	if _, ok := nodeLabels(t)[labelKey]; ok {
		t.Fatal("OnDemand unstage kept the FUSE label")
	}
	if notMnt, _ := mount.New("").IsLikelyNotMountPoint(fuseDir); notMnt {
		t.Fatal("the FUSE mount itself must be left alone")
	}
}

// TestPublishStackedMountsAreAllRemoved unpublishes a target that recovery
// (or a bug) left with several stacked bind mounts.
func TestPublishStackedMountsAreAllRemoved(t *testing.T) {
	requireRoot(t)
	socket, _ := startDriver(t)
	nc := nodeClient(t, socket)
	src, target := t.TempDir(), filepath.Join(t.TempDir(), "target")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	m := mount.New("")
	for range 3 {
		if err := m.Mount(src, target, "", []string{"bind"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := nc.NodeUnpublishVolume(context.Background(), &csi.NodeUnpublishVolumeRequest{VolumeId: "v", TargetPath: target}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("target left behind: %v", err)
	}
}
