package csi

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// alreadyPublished answers a NodePublishVolume whose target is already a
// mount point. It is this publish again (success) only when the record of
// the target names the same volume, source and read-only mode, or, with
// no record (a publish whose record could not be saved), when the mount's
// root is the requested source directory itself, in which case the record
// is written now so that recovery re-binds it. Anything else at the target
// is another volume's or not Sluice's: AlreadyExists, as the CSI spec asks
// for a target published with incompatible parameters.
func (d *Driver) alreadyPublished(want published) (*csi.NodePublishVolumeResponse, error) {
	had, ok, err := d.loadPublished(want.Target)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "reading the record of %s: %v", want.Target, err)
	}
	if ok {
		if had.VolumeID != want.VolumeID || had.Source != want.Source || had.ReadOnly != want.ReadOnly || had.Symlink != want.Symlink {
			return nil, status.Errorf(codes.AlreadyExists,
				"NodePublishVolume: %s already publishes volume %s from %s (read-only %v), not volume %s from %s (read-only %v)",
				want.Target, had.VolumeID, had.Source, had.ReadOnly, want.VolumeID, want.Source, want.ReadOnly)
		}
		return &csi.NodePublishVolumeResponse{}, nil
	}
	if want.Symlink || !d.publishes(want) {
		return nil, status.Errorf(codes.AlreadyExists,
			"NodePublishVolume: %s is a mount point, but not of %s (volume %s), and Sluice has no record of publishing it",
			want.Target, want.Source, want.VolumeID)
	}
	if err := d.savePublished(want); err != nil {
		return nil, status.Errorf(codes.Internal, "recording the mount at %s: %v", want.Target, err)
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

// loadPublished reads the record of the bind mount at target.
func (d *Driver) loadPublished(target string) (published, bool, error) {
	var p published
	data, err := os.ReadFile(d.publishedPath(target))
	if errors.Is(err, fs.ErrNotExist) {
		return p, false, nil
	}
	if err != nil {
		return p, false, err
	}
	if err := json.Unmarshal(data, &p); err != nil || p.Target != target {
		return p, false, nil // a torn or foreign file: judged as no record
	}
	return p, true, nil
}

// publishes says whether the mount at want.Target is of want's source: the
// same directory (device and inode), the source opened as NodePublishVolume
// opens it (openSource), so that no symbolic link in the dataset decides.
func (d *Driver) publishes(want published) bool {
	sub, err := subPathOf(want)
	if err != nil {
		return false
	}
	dir, err := openSource(d.cfg.FuseRoot, want.FluidPath, sub)
	if err != nil {
		return false
	}
	defer dir.Close()
	st, err := os.Stat(want.Target)
	if err != nil {
		return false
	}
	sd, err := dir.Stat()
	return err == nil && os.SameFile(st, sd)
}
