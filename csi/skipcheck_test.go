package csi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestSkipCheckMountReadyTarget publishes, with real bind mounts, a
// dataset directory that no FUSE mounts (the node's mount table does not
// list it): without fluid.io/skip-check-mount-ready-target the publish
// waits for a FUSE mount and fails; naming MountPod (or All) it binds the
// directory at once, still opened with no symbolic link followed; Sidecar
// or None do not concern the plugin; an unknown mode is refused, naming it.
func TestSkipCheckMountReadyTarget(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("real bind mounts need root")
	}
	tr := newSubPathTree(t)
	d, err := New(Config{NodeID: "n1", Endpoint: "unix:///tmp/x.sock", Mounter: NewSyscallMounter(), StateDir: t.TempDir(), FuseRoot: tr.root,
		PublishTimeout: 300 * time.Millisecond, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	publish := func(target, skip, sub string) error {
		req := publishReq(tr, sub, target)
		if skip != "-" {
			req.VolumeContext[datav1alpha1.AnnotationSkipCheckMountReadyTarget] = skip
		}
		_, err := d.NodePublishVolume(ctx, req)
		return err
	}
	for _, tt := range []struct {
		skip string     // the attribute's value; "-" for none
		code codes.Code // NodePublishVolume's; OK publishes
		msg  string     // in the error
	}{
		{"-", codes.DeadlineExceeded, "FUSE mount at " + tr.fluid + " is not ready"},
		{"", codes.DeadlineExceeded, "is not ready"},
		{"None", codes.DeadlineExceeded, "is not ready"},
		{"Sidecar", codes.DeadlineExceeded, "is not ready"},
		{"MountPod", codes.OK, ""},
		{"All", codes.OK, ""},
		{"Sidecar,MountPod", codes.OK, ""},
		{"Mountpod", codes.InvalidArgument, `names mount mode "Mountpod"`},
	} {
		t.Run(tt.skip, func(t *testing.T) {
			target := newTarget(t)
			err := publish(target, tt.skip, "d")
			if status.Code(err) != tt.code || (tt.msg != "" && !strings.Contains(err.Error(), tt.msg)) {
				t.Fatalf("publish: %v, want %v saying %q", err, tt.code, tt.msg)
			}
			if tt.code != codes.OK {
				if n := mountCount(t, target); n != 0 {
					t.Fatalf("%d mount(s) at the refused target", n)
				}
				return
			}
			defer unpublish(t, d, target)
			if data, err := os.ReadFile(filepath.Join(target, "file.txt")); err != nil || string(data) != "inside" {
				t.Fatalf("file.txt through the target = %q, %v", data, err)
			}
		})
	}

	t.Run("still follows no symbolic link", func(t *testing.T) {
		target := newTarget(t)
		if err := publish(target, "MountPod", "abs"); status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("publish of a link out: %v", err)
		}
		if n := mountCount(t, target); n != 0 {
			t.Fatalf("%d mount(s) at the refused target", n)
		}
	})
	t.Run("waits for the directory", func(t *testing.T) {
		missing := publishReq(tr, "", newTarget(t))
		missing.VolumeContext[datav1alpha1.VolumeAttrFluidPath] = filepath.Join(tr.root, "juicefs", "team-a", "gone", "juicefs-fuse")
		missing.VolumeContext[datav1alpha1.AnnotationSkipCheckMountReadyTarget] = "All"
		if _, err := d.NodePublishVolume(ctx, missing); status.Code(err) != codes.DeadlineExceeded || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("publish of a missing directory: %v", err)
		}
	})
}
