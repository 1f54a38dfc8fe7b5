package csi

import (
	"context"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Datasets are served by static PVs that Sluice's controller creates; the
// Controller service only echoes, so that tools that create volumes through
// the driver (and csi-sanity) work. It remembers, in memory, the volumes it
// created, to answer repeated and conflicting requests as the spec asks.

// ControllerGetCapabilities implements csi.ControllerServer.
func (d *Driver) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: []*csi.ControllerServiceCapability{{
		Type: &csi.ControllerServiceCapability_Rpc{Rpc: &csi.ControllerServiceCapability_RPC{Type: csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME}},
	}}}, nil
}

// CreateVolume implements csi.ControllerServer: the volume is named after the
// request and its context is the request's parameters.
func (d *Driver) CreateVolume(_ context.Context, req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "CreateVolume: name is required")
	}
	if len(req.GetVolumeCapabilities()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "CreateVolume: volume capabilities are required")
	}
	if err := checkCapabilities(req.GetVolumeCapabilities()); err != nil {
		return nil, err
	}
	size := req.GetCapacityRange().GetRequiredBytes()
	d.created.mu.Lock()
	defer d.created.mu.Unlock()
	if d.created.sizes == nil {
		d.created.sizes = map[string]int64{}
	}
	if prev, ok := d.created.sizes[req.GetName()]; ok && prev != size {
		return nil, status.Errorf(codes.AlreadyExists, "volume %q exists with %d bytes, not %d", req.GetName(), prev, size)
	}
	d.created.sizes[req.GetName()] = size
	return &csi.CreateVolumeResponse{Volume: &csi.Volume{
		VolumeId: req.GetName(), CapacityBytes: size, VolumeContext: req.GetParameters(),
	}}, nil
}

// DeleteVolume implements csi.ControllerServer; there is nothing to delete.
func (d *Driver) DeleteVolume(_ context.Context, req *csi.DeleteVolumeRequest) (*csi.DeleteVolumeResponse, error) {
	if req.GetVolumeId() == "" {
		return nil, status.Error(codes.InvalidArgument, "DeleteVolume: volume ID is required")
	}
	d.created.mu.Lock()
	delete(d.created.sizes, req.GetVolumeId())
	d.created.mu.Unlock()
	return &csi.DeleteVolumeResponse{}, nil
}

// ValidateVolumeCapabilities implements csi.ControllerServer.
func (d *Driver) ValidateVolumeCapabilities(_ context.Context, req *csi.ValidateVolumeCapabilitiesRequest) (*csi.ValidateVolumeCapabilitiesResponse, error) {
	if req.GetVolumeId() == "" {
		return nil, status.Error(codes.InvalidArgument, "ValidateVolumeCapabilities: volume ID is required")
	}
	if len(req.GetVolumeCapabilities()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "ValidateVolumeCapabilities: volume capabilities are required")
	}
	d.created.mu.Lock()
	_, known := d.created.sizes[req.GetVolumeId()]
	d.created.mu.Unlock()
	if !known {
		return nil, status.Errorf(codes.NotFound, "volume %q was not created through this driver (dataset volumes are static PVs)", req.GetVolumeId())
	}
	if err := checkCapabilities(req.GetVolumeCapabilities()); err != nil {
		return &csi.ValidateVolumeCapabilitiesResponse{Message: err.Error()}, nil
	}
	return &csi.ValidateVolumeCapabilitiesResponse{Confirmed: &csi.ValidateVolumeCapabilitiesResponse_Confirmed{
		VolumeContext: req.GetVolumeContext(), VolumeCapabilities: req.GetVolumeCapabilities(), Parameters: req.GetParameters(),
	}}, nil
}

// checkCapabilities accepts filesystem volumes in any access mode; a
// dataset is a directory, never a block device.
func checkCapabilities(caps []*csi.VolumeCapability) error {
	for _, c := range caps {
		if c.GetBlock() != nil {
			return status.Error(codes.InvalidArgument, "block volumes are not supported: a dataset is a file system")
		}
		if c.GetMount() == nil {
			return status.Error(codes.InvalidArgument, "the volume capability must be a mount")
		}
	}
	return nil
}
