package csi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Publish methods: how NodePublishVolume gives a Pod a dataset (the
// --node-publish-method flag, Fluid's NODEPUBLISH_METHOD, and the volume
// attribute node_publish_method).
const (
	// PublishBind bind-mounts the dataset's directory, opened with no
	// symbolic link followed, at the target. The default.
	PublishBind = "bind"
	// PublishSymlink makes the target a symbolic link to fluid_path, the
	// FUSE mount point itself; the container runtime then mounts what the
	// link names when it starts the Pod's containers.
	PublishSymlink = "symlink"
)

// bySymlink decides whether a publish is by symbolic link. The volume
// attribute node_publish_method asks for one volume (symlink, or bind
// against the node's default); the node's default (Config.PublishMethod)
// covers the others. A symbolic link is made only where it is as safe as
// the bind mount: with no sub-path, since the container runtime would walk
// a sub-path inside the FUSE file system following its links, which the
// dataset's owner writes; and read-write only, since a link cannot be
// read-only (a reference dataset's read-only access to another
// namespace's dataset would become writable). A volume that asks for a
// symbolic link where none is safe is refused, naming why; the node's
// default falls back to the bind mount for it.
func (d *Driver) bySymlink(vc map[string]string, sub string, readOnly bool) (bool, error) {
	switch m := vc[datav1alpha1.VolumeAttrNodePublishMethod]; m {
	case PublishBind:
		return false, nil
	case PublishSymlink:
		if sub != "" {
			return false, status.Errorf(codes.FailedPrecondition,
				"NodePublishVolume: %s=%s cannot publish the sub-path %q: the container runtime would follow symbolic links inside the dataset to reach it; publish by bind mount", datav1alpha1.VolumeAttrNodePublishMethod, m, sub)
		}
		if readOnly {
			return false, status.Errorf(codes.FailedPrecondition,
				"NodePublishVolume: %s=%s cannot publish read-only (the volume is ReadOnlyMany or the Pod mounts it readOnly): a symbolic link has no read-only mode; give the Dataset accessModes [ReadWriteMany] or publish by bind mount", datav1alpha1.VolumeAttrNodePublishMethod, m)
		}
		return true, nil
	case "":
		return d.cfg.PublishMethod == PublishSymlink && sub == "" && !readOnly, nil
	default:
		return false, status.Errorf(codes.InvalidArgument, "NodePublishVolume: %s=%q is neither %s nor %s", datav1alpha1.VolumeAttrNodePublishMethod, m, PublishBind, PublishSymlink)
	}
}

// isSymlink reports whether path is a symbolic link. A path lstat(2)
// cannot read is not one: a link is read from its directory, so lstat
// fails on a missing path or a dead mount point (ENOTCONN), never on a
// link; the callers judge those as they did before.
func isSymlink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// link publishes rec by making its target a symbolic link to its source,
// replacing the empty directory a publish by bind mount would have used.
// The caller has opened the source beneath the FUSE root (openSource), so
// the link names a directory reached through no symbolic link.
func (d *Driver) link(rec published) (*csi.NodePublishVolumeResponse, error) {
	if err := os.Remove(rec.Target); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, status.Errorf(codes.Internal, "NodePublishVolume: replacing %s by a symbolic link: %v", rec.Target, err)
	}
	if err := os.MkdirAll(filepath.Dir(rec.Target), 0o750); err != nil {
		return nil, status.Errorf(codes.Internal, "creating %s: %v", filepath.Dir(rec.Target), err)
	}
	if err := os.Symlink(rec.Source, rec.Target); err != nil {
		return nil, status.Errorf(codes.Internal, "NodePublishVolume: linking %s to %s: %v", rec.Target, rec.Source, err)
	}
	if err := d.savePublished(rec); err != nil {
		return nil, status.Errorf(codes.Internal, "recording the link at %s: %v", rec.Target, err)
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

// alreadyLinked answers a NodePublishVolume whose target is a symbolic
// link: this publish again when it is by link and the link names its
// source (recorded, or recorded now); anything else is AlreadyExists, and
// the link is never followed.
func (d *Driver) alreadyLinked(want published) (*csi.NodePublishVolumeResponse, error) {
	to, err := os.Readlink(want.Target)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "reading the link %s: %v", want.Target, err)
	}
	had, ok, err := d.loadPublished(want.Target)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "reading the record of %s: %v", want.Target, err)
	}
	same := want.Symlink && to == want.Source && (!ok || (had.Symlink && had.VolumeID == want.VolumeID && had.Source == want.Source))
	if !same {
		return nil, status.Errorf(codes.AlreadyExists,
			"NodePublishVolume: %s is a symbolic link to %s, not Sluice's link publishing volume %s from %s", want.Target, to, want.VolumeID, want.Source)
	}
	if !ok {
		if err := d.savePublished(want); err != nil {
			return nil, status.Errorf(codes.Internal, "recording the link at %s: %v", want.Target, err)
		}
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

// linksTo returns the targets published by symbolic link to fluidPath:
// Pods using the volume that no bind mount shows (bindMountsOf).
func (d *Driver) linksTo(fluidPath string) ([]string, error) {
	pubs, err := d.listPublished()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range pubs {
		if p.Symlink && p.FluidPath == fluidPath {
			out = append(out, p.Target)
		}
	}
	return out, nil
}

// checkPublishMethod refuses a node default other than bind and symlink.
func checkPublishMethod(m string) error {
	if m != PublishBind && m != PublishSymlink {
		return fmt.Errorf("the publish method %q is neither %s nor %s", m, PublishBind, PublishSymlink)
	}
	return nil
}
