package csi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	mount "k8s.io/mount-utils"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Pod information the kubelet adds to the volume context (podInfoOnMount).
const (
	podNamespaceKey = "csi.storage.k8s.io/pod.namespace"
	podNameKey      = "csi.storage.k8s.io/pod.name"
)

// NodeGetInfo implements csi.NodeServer.
func (d *Driver) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: d.cfg.NodeID}, nil
}

// NodeGetCapabilities implements csi.NodeServer: staging is where FUSE is
// started on the node.
func (d *Driver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	return &csi.NodeGetCapabilitiesResponse{Capabilities: []*csi.NodeServiceCapability{{
		Type: &csi.NodeServiceCapability_Rpc{Rpc: &csi.NodeServiceCapability_RPC{Type: csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME}},
	}}}, nil
}

// NodeStageVolume implements csi.NodeServer: it clears a broken FUSE mount
// left at fluid_path and labels the node so that the runtime's FUSE
// DaemonSet starts a FUSE pod here (lazy FUSE). It is idempotent.
func (d *Driver) NodeStageVolume(ctx context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
	id := req.GetVolumeId()
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "NodeStageVolume: volume ID is required")
	case req.GetStagingTargetPath() == "":
		return nil, status.Error(codes.InvalidArgument, "NodeStageVolume: staging target path is required")
	case req.GetVolumeCapability() == nil:
		return nil, status.Error(codes.InvalidArgument, "NodeStageVolume: volume capability is required")
	}
	if err := checkCapabilities([]*csi.VolumeCapability{req.GetVolumeCapability()}); err != nil {
		return nil, err
	}
	vc := req.GetVolumeContext()
	fluidPath := vc[datav1alpha1.VolumeAttrFluidPath]
	if fluidPath == "" {
		return nil, status.Errorf(codes.InvalidArgument, "NodeStageVolume: volume %s has no %s attribute", id, datav1alpha1.VolumeAttrFluidPath)
	}
	if err := checkFluidPath(d.cfg.FuseRoot, fluidPath); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "NodeStageVolume: volume %s: %v", id, err)
	}
	if !d.volumes.tryLock(id) {
		return nil, status.Errorf(codes.Aborted, "an operation on volume %s is in progress", id)
	}
	defer d.volumes.unlock(id)

	if err := d.clearBrokenMount(fluidPath); err != nil {
		return nil, status.Errorf(codes.Internal, "clearing the broken mount at %s: %v", fluidPath, err)
	}
	st := stagedVolume{FluidPath: fluidPath, LabelKey: vc[datav1alpha1.VolumeAttrNodeSelectorKey], CleanPolicy: vc[datav1alpha1.VolumeAttrFuseCleanPolicy],
		RuntimeNamespace: vc[datav1alpha1.VolumeAttrRuntimeNamespace], RuntimeName: vc[datav1alpha1.VolumeAttrRuntimeName]}
	if prev, found, err := d.loadState(id); err == nil && found && prev.FuseGeneration != 0 {
		st.FuseGeneration = prev.FuseGeneration // restaging keeps the generation FUSE started with
	} else if st.CleanPolicy == string(datav1alpha1.OnFuseChangedCleanPolicy) && d.cfg.Fuse != nil && st.RuntimeName != "" {
		gen, ok, err := d.cfg.Fuse.FuseGeneration(ctx, st.RuntimeNamespace, st.RuntimeName)
		if err != nil {
			return nil, status.Errorf(codes.Unavailable, "reading the FUSE generation: %v", err)
		}
		if ok {
			st.FuseGeneration = gen
		}
	}
	if err := d.saveState(id, st); err != nil {
		return nil, status.Errorf(codes.Internal, "recording volume %s: %v", id, err)
	}
	if st.LabelKey != "" && d.cfg.Labeler != nil {
		if err := d.cfg.Labeler.SetLabel(ctx, d.cfg.NodeID, st.LabelKey, "true"); err != nil {
			return nil, status.Errorf(codes.Unavailable, "starting FUSE on node %s: %v", d.cfg.NodeID, err)
		}
	}
	return &csi.NodeStageVolumeResponse{}, nil
}

// NodeUnstageVolume implements csi.NodeServer: it applies the FUSE clean
// policy (see shouldClean), removing the node label (so the FUSE pod goes
// away) when no Pod on the node still uses the volume.
func (d *Driver) NodeUnstageVolume(ctx context.Context, req *csi.NodeUnstageVolumeRequest) (*csi.NodeUnstageVolumeResponse, error) {
	id := req.GetVolumeId()
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "NodeUnstageVolume: volume ID is required")
	case req.GetStagingTargetPath() == "":
		return nil, status.Error(codes.InvalidArgument, "NodeUnstageVolume: staging target path is required")
	}
	if !d.volumes.tryLock(id) {
		return nil, status.Errorf(codes.Aborted, "an operation on volume %s is in progress", id)
	}
	defer d.volumes.unlock(id)
	st, found, err := d.loadState(id)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	if !found {
		return &csi.NodeUnstageVolumeResponse{}, nil // never staged here, or already unstaged
	}
	clean, err := d.shouldClean(ctx, st)
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "applying the FUSE clean policy: %v", err)
	}
	if clean && st.LabelKey != "" && d.cfg.Labeler != nil {
		inUse, err := d.bindMountsOf(st.FluidPath)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "listing mounts: %v", err)
		}
		links, err := d.linksTo(st.FluidPath)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "listing symlink publishes: %v", err)
		}
		inUse = append(inUse, links...)
		if len(inUse) > 0 {
			return nil, status.Errorf(codes.FailedPrecondition, "volume %s is still bind-mounted at %v", id, inUse)
		}
		if err := d.cfg.Labeler.RemoveLabel(ctx, d.cfg.NodeID, st.LabelKey); err != nil {
			return nil, status.Errorf(codes.Unavailable, "stopping FUSE on node %s: %v", d.cfg.NodeID, err)
		}
	}
	if err := d.removeState(id); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csi.NodeUnstageVolumeResponse{}, nil
}

// shouldClean applies the FUSE cleanPolicy: OnDemand always cleans,
// OnFuseChanged cleans when the FUSE DaemonSet's generation changed since
// staging (or it is gone), OnRuntimeDeleted (the default) never does: the
// controller removes the labels when the runtime is deleted.
func (d *Driver) shouldClean(ctx context.Context, st stagedVolume) (bool, error) {
	switch st.CleanPolicy {
	case string(datav1alpha1.OnDemandCleanPolicy):
		return true, nil
	case string(datav1alpha1.OnFuseChangedCleanPolicy):
		if d.cfg.Fuse == nil || st.RuntimeName == "" || st.FuseGeneration == 0 {
			return false, nil
		}
		gen, ok, err := d.cfg.Fuse.FuseGeneration(ctx, st.RuntimeNamespace, st.RuntimeName)
		if err != nil {
			return false, err
		}
		return !ok || gen != st.FuseGeneration, nil
	}
	return false, nil
}

// NodePublishVolume implements csi.NodeServer: it waits until fluid_path is
// a live FUSE mount, opens fluid_path[/fluid_sub_path] beneath the FUSE
// root with no symbolic link followed (openSource: it must exist and be a
// directory), and bind-mounts that open directory at the target, read-only
// when asked, or links the target to it (bySymlink).
func (d *Driver) NodePublishVolume(ctx context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	id, target := req.GetVolumeId(), req.GetTargetPath()
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "NodePublishVolume: volume ID is required")
	case target == "":
		return nil, status.Error(codes.InvalidArgument, "NodePublishVolume: target path is required")
	case req.GetVolumeCapability() == nil:
		return nil, status.Error(codes.InvalidArgument, "NodePublishVolume: volume capability is required")
	}
	if err := checkCapabilities([]*csi.VolumeCapability{req.GetVolumeCapability()}); err != nil {
		return nil, err
	}
	vc := req.GetVolumeContext()
	fluidPath := vc[datav1alpha1.VolumeAttrFluidPath]
	if fluidPath == "" {
		return nil, status.Errorf(codes.InvalidArgument, "NodePublishVolume: volume %s has no %s attribute", id, datav1alpha1.VolumeAttrFluidPath)
	}
	if err := checkFluidPath(d.cfg.FuseRoot, fluidPath); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "NodePublishVolume: volume %s: %v", id, err)
	}
	if !d.targets.tryLock(target) {
		return nil, status.Errorf(codes.Aborted, "an operation on %s is in progress", target)
	}
	defer d.targets.unlock(target)

	sub := cleanSubPath(vc[datav1alpha1.VolumeAttrSubPath])
	source := filepath.Join(fluidPath, sub)
	readOnly := req.GetReadonly() || req.GetVolumeCapability().GetAccessMode().GetMode() == csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY
	symlink, err := d.bySymlink(vc, sub, readOnly)
	if err != nil {
		return nil, err
	}
	rec := published{VolumeID: id, Target: target, Source: source, FluidPath: fluidPath, ReadOnly: readOnly,
		PodNamespace: vc[podNamespaceKey], PodName: vc[podNameKey], Symlink: symlink}
	if isSymlink(target) {
		return d.alreadyLinked(rec)
	}
	if mounted, err := d.isMountPoint(target); err != nil {
		return nil, status.Errorf(codes.Internal, "checking %s: %v", target, err)
	} else if mounted {
		return d.alreadyPublished(rec)
	}
	if err := d.waitForMount(ctx, vc, fluidPath); err != nil {
		return nil, err
	}
	dir, err := openSource(d.cfg.FuseRoot, fluidPath, sub)
	if err != nil {
		return nil, sourceStatus(id, err)
	}
	defer dir.Close()
	if symlink {
		return d.link(rec)
	}
	if err := os.MkdirAll(target, 0o750); err != nil {
		return nil, status.Errorf(codes.Internal, "creating %s: %v", target, err)
	}
	if err := d.cfg.Mounter.BindDir(dir, target, readOnly); err != nil {
		return nil, status.Errorf(codes.Internal, "bind-mounting %s at %s: %v", source, target, err)
	}
	if err := d.savePublished(rec); err != nil {
		return nil, status.Errorf(codes.Internal, "recording the mount at %s: %v", target, err)
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

// NodeUnpublishVolume implements csi.NodeServer: it unmounts every mount
// stacked at the target (recovery may have stacked several) and removes it.
func (d *Driver) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	id, target := req.GetVolumeId(), req.GetTargetPath()
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "NodeUnpublishVolume: volume ID is required")
	case target == "":
		return nil, status.Error(codes.InvalidArgument, "NodeUnpublishVolume: target path is required")
	}
	if !d.targets.tryLock(target) {
		return nil, status.Errorf(codes.Aborted, "an operation on %s is in progress", target)
	}
	defer d.targets.unlock(target)
	if err := d.unmountAll(target); err != nil {
		return nil, status.Errorf(codes.Internal, "unmounting %s: %v", target, err)
	}
	if err := os.Remove(target); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, status.Errorf(codes.Internal, "removing %s: %v", target, err)
	}
	if err := d.removePublished(target); err != nil {
		return nil, status.Errorf(codes.Internal, "forgetting the mount at %s: %v", target, err)
	}
	return &csi.NodeUnpublishVolumeResponse{}, nil
}

// isMountPoint reports whether path is a mount point; a missing path is
// not, nor is a symbolic link (a symlink publish's target), which is never
// followed: unmounting through it would unmount the FUSE mount itself.
func (d *Driver) isMountPoint(path string) (bool, error) {
	if isSymlink(path) {
		return false, nil
	}
	notMnt, err := d.cfg.Mounter.IsLikelyNotMountPoint(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case mount.IsCorruptedMnt(err):
		return true, nil
	case err != nil:
		return false, err
	}
	return !notMnt, nil
}

// unmountAll unmounts path until it is no longer a mount point.
func (d *Driver) unmountAll(path string) error {
	for range 64 {
		mounted, err := d.isMountPoint(path)
		if err != nil || !mounted {
			return err
		}
		if err := d.cfg.Mounter.Unmount(path); err != nil {
			return err
		}
	}
	return fmt.Errorf("%s is still mounted after 64 unmounts", path)
}
