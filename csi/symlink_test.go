package csi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// mountFluid mounts a file system of its own (tmpfs) at tr.fluid, as the
// FUSE is, holding d/file.txt, so that a test sees whether anything
// unmounts it.
func mountFluid(t *testing.T, tr subPathTree) {
	t.Helper()
	if err := unix.Mount("sluicetest", tr.fluid, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Unmount(tr.fluid, unix.MNT_DETACH) })
	if err := os.Mkdir(filepath.Join(tr.fluid, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tr.fluid, "d", "file.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func linkReq(tr subPathTree, target string, readOnly bool) *csi.NodePublishVolumeRequest {
	req := publishReq(tr, "", target)
	req.VolumeContext[datav1alpha1.VolumeAttrNodePublishMethod] = PublishSymlink
	req.Readonly = readOnly
	return req
}

// TestSymlinkPublish publishes by symbolic link (node_publish_method
// symlink) with real mounts: the target becomes a link to fluid_path, a
// publish again succeeds, the link is never followed to unmount (the
// FUSE mount point survives unpublishing), and a staged volume published
// by link is in use for NodeUnstageVolume. A link is refused where it
// would be less safe than the bind mount: a sub-path (the container
// runtime would follow the dataset's links to it) and a read-only volume.
func TestSymlinkPublish(t *testing.T) {
	tr := newSubPathTree(t)
	d := realDriver(t, tr)
	mountFluid(t, tr)
	ctx := context.Background()
	before := mountCount(t, tr.fluid)

	target := newTarget(t)
	if _, err := d.NodePublishVolume(ctx, linkReq(tr, target, false)); err != nil {
		t.Fatalf("publish by link: %v", err)
	}
	if to, err := os.Readlink(target); err != nil || to != tr.fluid {
		t.Fatalf("target links to %q (%v), want %s", to, err, tr.fluid)
	}
	if data, err := os.ReadFile(filepath.Join(target, "d", "file.txt")); err != nil || string(data) != "inside" {
		t.Fatalf("d/file.txt through the link = %q, %v", data, err)
	}
	if _, err := d.NodePublishVolume(ctx, linkReq(tr, target, false)); err != nil {
		t.Fatalf("publishing by link again must succeed: %v", err)
	}
	if _, err := d.NodePublishVolume(ctx, publishReq(tr, "", target)); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("a bind publish at the link: %v, want AlreadyExists", err)
	}
	if d.Recover(ctx) != 0 {
		t.Fatal("recovery re-bound a link")
	}

	// A staged volume published by link is in use: OnDemand unstaging waits.
	labels := &fakeLabeler{labels: map[string]string{}}
	d.cfg.Labeler = labels
	staging := t.TempDir()
	stage := &csi.NodeStageVolumeRequest{VolumeId: "team-b-ref", StagingTargetPath: staging, VolumeCapability: mountCap, VolumeContext: map[string]string{
		datav1alpha1.VolumeAttrFluidPath: tr.fluid, datav1alpha1.VolumeAttrNodeSelectorKey: "fluid.io/f-team-a-src", datav1alpha1.VolumeAttrFuseCleanPolicy: "OnDemand"}}
	if _, err := d.NodeStageVolume(ctx, stage); err != nil {
		t.Fatal(err)
	}
	unstage := &csi.NodeUnstageVolumeRequest{VolumeId: "team-b-ref", StagingTargetPath: staging}
	if _, err := d.NodeUnstageVolume(ctx, unstage); status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), target) {
		t.Fatalf("unstage while linked: %v, want FailedPrecondition naming %s", err, target)
	}

	unpublish(t, d, target)
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Fatalf("the link is still there: %v", err)
	}
	if n := mountCount(t, tr.fluid); n != before {
		t.Fatalf("unpublishing the link left %d mount(s) at fluid_path, want %d: it unmounted through the link", n, before)
	}
	if _, err := d.NodeUnstageVolume(ctx, unstage); err != nil {
		t.Fatalf("unstage after unpublish: %v", err)
	}

	for _, tt := range []struct {
		name string
		req  func(target string) *csi.NodePublishVolumeRequest
		code codes.Code
		msg  string
	}{
		// name, request, code, in the error
		{"sub-path", func(target string) *csi.NodePublishVolumeRequest {
			r := linkReq(tr, target, false)
			r.VolumeContext[datav1alpha1.VolumeAttrSubPath] = "d"
			return r
		}, codes.FailedPrecondition, "cannot publish the sub-path"},
		{"read-only", func(target string) *csi.NodePublishVolumeRequest { return linkReq(tr, target, true) }, codes.FailedPrecondition, "cannot publish read-only"},
		{"unknown method", func(target string) *csi.NodePublishVolumeRequest {
			r := linkReq(tr, target, false)
			r.VolumeContext[datav1alpha1.VolumeAttrNodePublishMethod] = "hardlink"
			return r
		}, codes.InvalidArgument, `"hardlink" is neither`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target := newTarget(t)
			_, err := d.NodePublishVolume(ctx, tt.req(target))
			if status.Code(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("publish: %v, want %v saying %q", err, tt.code, tt.msg)
			}
			if _, err := os.Lstat(target); !os.IsNotExist(err) {
				t.Fatalf("something was made at the refused target: %v", err)
			}
		})
	}

	t.Run("a foreign link at the target is never followed", func(t *testing.T) {
		target := newTarget(t)
		if err := os.Symlink(tr.fluid, target); err != nil {
			t.Fatal(err)
		}
		if _, err := d.NodePublishVolume(ctx, publishReq(tr, "", target)); status.Code(err) != codes.AlreadyExists {
			t.Fatalf("a bind publish at a foreign link: %v, want AlreadyExists", err)
		}
		unpublish(t, d, target)
		if n := mountCount(t, tr.fluid); n != before {
			t.Fatalf("unpublishing a foreign link unmounted what it names: %d mount(s), want %d", n, before)
		}
	})
}

// TestSymlinkNodeDefault: with --node-publish-method symlink, a volume that
// says nothing is linked where a link is safe (no sub-path, read-write)
// and bind-mounted elsewhere; node_publish_method bind opts one out.
func TestSymlinkNodeDefault(t *testing.T) {
	tr := newSubPathTree(t)
	if os.Geteuid() != 0 {
		t.Skip("real bind mounts need root")
	}
	d, err := New(Config{NodeID: "n1", Endpoint: "unix:///tmp/x.sock", Mounter: fuseListed{NewSyscallMounter(), tr.fluid},
		StateDir: t.TempDir(), FuseRoot: tr.root, PublishTimeout: time.Second, PollInterval: 10 * time.Millisecond, PublishMethod: PublishSymlink})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		sub      string // fluid_sub_path
		readOnly bool
		method   string // node_publish_method
		link     bool   // published by link, else bound
	}{
		{"whole dataset, read-write", "", false, "", true},
		{"sub-path", "d", false, "", false},
		{"read-only", "", true, "", false},
		{"opted out", "", false, PublishBind, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target := newTarget(t)
			req := publishReq(tr, tt.sub, target)
			req.Readonly = tt.readOnly
			if tt.method != "" {
				req.VolumeContext[datav1alpha1.VolumeAttrNodePublishMethod] = tt.method
			}
			if _, err := d.NodePublishVolume(ctx, req); err != nil {
				t.Fatal(err)
			}
			defer unpublish(t, d, target)
			linked := isSymlink(target)
			if linked != tt.link || (mountCount(t, target) == 1) == tt.link {
				t.Fatalf("linked %v, %d mount(s); want linked %v", linked, mountCount(t, target), tt.link)
			}
		})
	}
	if _, err := New(Config{NodeID: "n1", Endpoint: "unix:///tmp/x.sock", Mounter: NewSyscallMounter(), StateDir: t.TempDir(), PublishMethod: "copy"}); err == nil ||
		!strings.Contains(err.Error(), `"copy" is neither`) {
		t.Fatalf("New with publish method copy: %v", err)
	}
}
