package csi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	mount "k8s.io/mount-utils"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// fuseListed is the real mounter, listing a FUSE mount at fuse in
// addition to the node's: a plain directory stands in for a FUSE mount.
type fuseListed struct {
	*SyscallMounter
	fuse string
}

func (m fuseListed) List() ([]mount.MountPoint, error) {
	mps, err := m.SyscallMounter.List()
	return append(mps, mount.MountPoint{Device: "test", Path: m.fuse, Type: "fuse.test"}), err
}

// subPathTree is a FUSE root with a dataset's FUSE directory in it, and a
// directory outside it holding the node's "secret".
type subPathTree struct {
	root, fluid, outside string
}

// newSubPathTree builds, in a temp directory, a FUSE root whose dataset
// directory has:
//
//	d/file.txt, deep/d2/file.txt      plain directories
//	abs      -> <outside>             absolute link out
//	rel      -> ../../../outside      relative link out
//	inlink   -> d                     relative link staying inside
//	abs-mid  -> <outside> (abs-mid/x is a directory outside)
//	rel-mid  -> ../../../outside      (rel-mid/x likewise)
//	deep/out -> <outside>             link out below a plain directory
func newSubPathTree(t *testing.T) subPathTree {
	t.Helper()
	base := t.TempDir()
	tr := subPathTree{root: filepath.Join(base, "runtime-mnt"), outside: filepath.Join(base, "outside")}
	tr.fluid = filepath.Join(tr.root, "juicefs", "team-a", "src", "juicefs-fuse")
	for _, dir := range []string{filepath.Join(tr.fluid, "d"), filepath.Join(tr.fluid, "deep", "d2"), filepath.Join(tr.outside, "x")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(tr.fluid, "d", "file.txt"):          "inside",
		filepath.Join(tr.fluid, "deep", "d2", "file.txt"): "deep inside",
		filepath.Join(tr.outside, "secret.txt"):           "the node's secret",
		filepath.Join(tr.outside, "x", "secret.txt"):      "the node's secret",
	}
	for p, content := range files {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	relOut, err := filepath.Rel(tr.fluid, tr.outside)
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"abs": tr.outside, "rel": relOut, "inlink": "d",
		"abs-mid": tr.outside, "rel-mid": relOut, "deep/out": tr.outside,
	}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(tr.fluid, name)); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// realDriver is a driver with real bind mounts over tr (root only).
func realDriver(t *testing.T, tr subPathTree) *Driver {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("real bind mounts need root")
	}
	d, err := New(Config{NodeID: "n1", Endpoint: "unix:///tmp/x.sock", Mounter: fuseListed{NewSyscallMounter(), tr.fluid},
		StateDir: t.TempDir(), FuseRoot: tr.root, PublishTimeout: time.Second, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func publishReq(tr subPathTree, sub, target string) *csi.NodePublishVolumeRequest {
	return &csi.NodePublishVolumeRequest{VolumeId: "team-b-ref", TargetPath: target, VolumeCapability: mountCap,
		VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: tr.fluid, datav1alpha1.VolumeAttrSubPath: sub}}
}

// mountCount is how many mounts the node has at path.
func mountCount(t *testing.T, path string) int {
	t.Helper()
	mps, err := mount.New("").List()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mp := range mps {
		if mp.Path == path {
			n++
		}
	}
	return n
}

// newTarget is a target path in a temp directory, anything mounted at it
// unmounted when the test ends (before the directory is removed).
func newTarget(t *testing.T) string {
	t.Helper()
	target := filepath.Join(t.TempDir(), "mount")
	t.Cleanup(func() {
		for range 8 {
			if unix.Unmount(target, 0) != nil {
				return
			}
		}
	})
	return target
}

func unpublish(t *testing.T, d *Driver, target string) {
	t.Helper()
	if _, err := d.NodeUnpublishVolume(context.Background(), &csi.NodeUnpublishVolumeRequest{VolumeId: "team-b-ref", TargetPath: target}); err != nil {
		t.Fatalf("unpublishing %s: %v", target, err)
	}
}

// TestPublishFollowsNoSymbolicLink (audit N2) publishes sub-paths of a
// dataset directory through real bind mounts. Plain directories publish.
// A sub-path that is, or passes through, a symbolic link (absolute or
// relative, leading out or even staying inside) is refused with
// FailedPrecondition and nothing is mounted at the target; so is every
// sub-path on a kernel without openat2.
func TestPublishFollowsNoSymbolicLink(t *testing.T) {
	tr := newSubPathTree(t)
	d := realDriver(t, tr)
	ctx := context.Background()
	for _, tt := range []struct {
		sub  string // fluid_sub_path
		want string // file.txt through the target
	}{{"d", "inside"}, {"/deep/d2/", "deep inside"}, {"", ""}} {
		target := newTarget(t)
		if _, err := d.NodePublishVolume(ctx, publishReq(tr, tt.sub, target)); err != nil {
			t.Fatalf("publishing sub-path %q: %v", tt.sub, err)
		}
		if tt.want != "" {
			if data, err := os.ReadFile(filepath.Join(target, "file.txt")); err != nil || string(data) != tt.want {
				t.Errorf("sub-path %q: file.txt through the target = %q, %v; want %q", tt.sub, data, err, tt.want)
			}
		} else if _, err := os.Stat(filepath.Join(target, "d", "file.txt")); err != nil {
			t.Errorf("no sub-path: d/file.txt through the target: %v", err)
		}
		unpublish(t, d, target)
	}

	for _, tt := range []struct {
		name, sub string
	}{
		// name, fluid_sub_path
		{"absolute link out, final component", "abs"},
		{"relative link out, final component", "rel"},
		{"absolute link out, intermediate component", "abs-mid/x"},
		{"relative link out, intermediate component", "rel-mid/x"},
		{"link out below a plain directory", "deep/out"},
		{"link staying inside", "inlink"},
		{"dot-dot climbing to a link", "d/../abs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target := newTarget(t)
			_, err := d.NodePublishVolume(ctx, publishReq(tr, tt.sub, target))
			if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "symbolic link") {
				t.Fatalf("publishing sub-path %q: %v, want FailedPrecondition naming the symbolic link", tt.sub, err)
			}
			if n := mountCount(t, target); n != 0 {
				unpublish(t, d, target)
				t.Fatalf("sub-path %q: %d mount(s) at the refused target", tt.sub, n)
			}
		})
	}

	t.Run("kernel without openat2", func(t *testing.T) {
		openat2 = func(int, string, *unix.OpenHow) (int, error) { return -1, unix.ENOSYS }
		defer func() { openat2 = unix.Openat2 }()
		for _, sub := range []string{"d", ""} {
			target := newTarget(t)
			_, err := d.NodePublishVolume(ctx, publishReq(tr, sub, target))
			if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "no openat2(2)") {
				t.Fatalf("sub-path %q without openat2: %v, want FailedPrecondition naming openat2", sub, err)
			}
			if n := mountCount(t, target); n != 0 {
				t.Fatalf("sub-path %q without openat2: %d mount(s) at the target", sub, n)
			}
		}
	})
}

// TestRebindFollowsNoSymbolicLink (audit N2): recovery re-opens a
// recorded publish's source as NodePublishVolume does; a sub-path that is
// now a link out of the FUSE mount is refused, and the target is left as
// it was.
func TestRebindFollowsNoSymbolicLink(t *testing.T) {
	tr := newSubPathTree(t)
	d := realDriver(t, tr)
	for _, sub := range []string{"abs", "rel-mid/x", "inlink"} {
		target := newTarget(t)
		if err := os.MkdirAll(target, 0o750); err != nil {
			t.Fatal(err)
		}
		err := d.rebind(published{VolumeID: "v", Target: target, Source: filepath.Join(tr.fluid, sub), FluidPath: tr.fluid})
		if !errors.Is(err, unix.ELOOP) {
			t.Errorf("re-binding sub-path %q: %v, want the symbolic link refused", sub, err)
		}
		if n := mountCount(t, target); n != 0 {
			unpublish(t, d, target)
			t.Errorf("re-binding sub-path %q: %d mount(s) at the target", sub, n)
		}
	}
	target := newTarget(t)
	if err := d.rebind(published{VolumeID: "v", Target: target, Source: filepath.Join(tr.fluid, "d"), FluidPath: tr.fluid}); err != nil {
		t.Fatalf("re-binding sub-path d: %v", err)
	}
	defer unpublish(t, d, target)
	if data, err := os.ReadFile(filepath.Join(target, "file.txt")); err != nil || string(data) != "inside" {
		t.Fatalf("re-bound sub-path d: file.txt = %q, %v", data, err)
	}
}

// TestSwappedSubPathNeverMountsOutside (audit N2) races the mount: while
// the dataset's "flip" is swapped, by renames, between a directory and a
// link to a directory outside the FUSE mount, NodePublishVolume and
// recovery's rebind are called again and again. Each either refuses or
// mounts the directory; none ever shows the outside's files. With a
// check of the resolved path and then a mount of the path (walked again),
// the swap lands between the two within a few hundred tries.
func TestSwappedSubPathNeverMountsOutside(t *testing.T) {
	tr := newSubPathTree(t)
	d := realDriver(t, tr)
	flip, asDir, asLink := filepath.Join(tr.fluid, "flip"), filepath.Join(tr.fluid, "flip.dir"), filepath.Join(tr.fluid, "flip.link")
	if err := os.Mkdir(asDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(asDir, "file.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tr.outside, asLink); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			_ = os.Rename(asDir, flip)
			_ = os.Rename(flip, asDir)
			_ = os.Rename(asLink, flip)
			_ = os.Rename(flip, asLink)
		}
	}()
	defer func() { stop.Store(true); <-done }()

	escaped := func(target string) bool {
		_, err := os.Stat(filepath.Join(target, "secret.txt"))
		return err == nil
	}
	ctx := context.Background()
	tries := map[string]func(target string) error{
		"NodePublishVolume": func(target string) error {
			_, err := d.NodePublishVolume(ctx, publishReq(tr, "flip", target))
			return err
		},
		"rebind": func(target string) error {
			if err := os.MkdirAll(target, 0o750); err != nil {
				return err
			}
			return d.rebind(published{VolumeID: "team-b-ref", Target: target, Source: flip, FluidPath: tr.fluid})
		},
	}
	for name, try := range tries {
		t.Run(name, func(t *testing.T) {
			mounted, tried := 0, 0
			deadline := time.Now().Add(3 * time.Second)
			for i := 0; i < 3000 && time.Now().Before(deadline); i++ {
				target := newTarget(t)
				err := try(target)
				n := mountCount(t, target)
				out := n > 0 && escaped(target)
				if n > 0 {
					mounted++
					unpublish(t, d, target)
				}
				if out {
					t.Fatalf("try %d: the outside directory was mounted at the target (err %v)", i, err)
				}
				tried = i + 1
			}
			if mounted == 0 {
				t.Fatalf("%d tries, and the directory was never mounted: the race was not run", tried)
			}
			t.Logf("%s: %d tries mounted the directory %d times; never the outside", name, tried, mounted)
		})
	}
}
