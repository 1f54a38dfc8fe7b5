package csi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	mount "k8s.io/mount-utils"
)

// fuseMounted reports whether path is the mount point of a FUSE file system.
func (d *Driver) fuseMounted(path string) (bool, error) {
	mps, err := d.cfg.Mounter.List()
	if err != nil {
		return false, err
	}
	clean := filepath.Clean(path)
	for _, mp := range mps {
		if filepath.Clean(mp.Path) == clean && isFuse(mp.Type) {
			return true, nil
		}
	}
	return false, nil
}

func isFuse(fsType string) bool { return fsType == "fuse" || strings.HasPrefix(fsType, "fuse.") }

// waitForFuse waits until path is a live FUSE mount, bounded by ctx and the
// publish timeout.
func (d *Driver) waitForFuse(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.PublishTimeout)
	defer cancel()
	tick := time.NewTicker(d.cfg.PollInterval)
	defer tick.Stop()
	for {
		live, err := d.fuseMounted(path)
		if err != nil {
			return status.Errorf(codes.Internal, "reading the mount table: %v", err)
		}
		if live {
			if _, err := os.Stat(path); err == nil {
				return nil
			} else if !mount.IsCorruptedMnt(err) {
				return status.Errorf(codes.Internal, "checking the FUSE mount %s: %v", path, err)
			}
		}
		select {
		case <-ctx.Done():
			return status.Errorf(codes.DeadlineExceeded, "the dataset's FUSE mount at %s is not ready (waited up to %v): is the runtime's FUSE pod running on this node?", path, d.cfg.PublishTimeout)
		case <-tick.C:
		}
	}
}

// clearBrokenMount unmounts path if it is a FUSE mount whose process died
// (stat fails with ENOTCONN), so that a new FUSE pod can mount there.
func (d *Driver) clearBrokenMount(path string) error {
	_, err := os.Stat(path)
	if err == nil || errors.Is(err, os.ErrNotExist) || !mount.IsCorruptedMnt(err) {
		return nil
	}
	return d.cfg.Mounter.Unmount(path)
}

// bindMountsOf returns the other mount points of the file system mounted at
// source (same device number in mountinfo), i.e. Pods' bind mounts of it.
// Device names are no help: every FUSE mount of one engine has the same.
func (d *Driver) bindMountsOf(source string) ([]string, error) {
	infos, err := mount.ParseMountInfo(d.cfg.MountInfoPath)
	if err != nil {
		return nil, err
	}
	clean := filepath.Clean(source)
	major, minor, found := 0, 0, false
	for _, mi := range infos {
		if filepath.Clean(mi.MountPoint) == clean {
			major, minor, found = mi.Major, mi.Minor, true
		}
	}
	if !found {
		return nil, nil
	}
	var out []string
	for _, mi := range infos {
		if mi.Major == major && mi.Minor == minor && filepath.Clean(mi.MountPoint) != clean {
			out = append(out, mi.MountPoint)
		}
	}
	return out, nil
}
