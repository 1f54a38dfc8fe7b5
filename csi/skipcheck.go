package csi

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// The mount modes fluid.io/skip-check-mount-ready-target may name, as
// Fluid spells them: a dataset is mounted by the runtime's FUSE pod
// (MountPod, the CSI plugin's case) or by a FUSE sidecar (Sidecar, which
// the plugin never sees). All names both; None, like no value, neither.
const (
	mountModeMountPod = "MountPod"
	mountModeSidecar  = "Sidecar"
	mountModeAll      = "All"
	mountModeNone     = "None"
)

// skipsMountCheck reads the volume attribute
// fluid.io/skip-check-mount-ready-target (copied from the runtime's
// annotation to its PV): whether NodePublishVolume skips waiting for a
// FUSE mount at fluid_path, because the runtime's mount pod mounts
// something else there (a kernel NFS mount, say) or nothing at all. A
// value naming an unknown mode is an error naming it.
func skipsMountCheck(vc map[string]string) (bool, error) {
	v := vc[datav1alpha1.AnnotationSkipCheckMountReadyTarget]
	skip := false
	for _, mode := range strings.Split(v, ",") {
		switch mode {
		case "", mountModeNone, mountModeSidecar:
		case mountModeMountPod, mountModeAll:
			skip = true
		default:
			return false, fmt.Errorf("%s=%q names mount mode %q; the modes are %s", datav1alpha1.AnnotationSkipCheckMountReadyTarget, v, mode,
				strings.Join([]string{mountModeAll, mountModeNone, mountModeMountPod, mountModeSidecar}, ", "))
		}
	}
	return skip, nil
}

// waitForDir waits until path exists, bounded by ctx and the publish
// timeout: the wait of a volume whose runtime skips the FUSE mount check,
// so that a Pod is not given the directory before the mount pod made it.
func (d *Driver) waitForDir(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.PublishTimeout)
	defer cancel()
	tick := time.NewTicker(d.cfg.PollInterval)
	defer tick.Stop()
	for {
		_, err := os.Stat(path)
		if err == nil {
			return nil
		}
		if !os.IsNotExist(err) {
			return status.Errorf(codes.Internal, "checking the dataset's directory %s: %v", path, err)
		}
		select {
		case <-ctx.Done():
			return status.Errorf(codes.DeadlineExceeded, "the dataset's directory %s does not exist (waited up to %v; the runtime's %s skips the FUSE mount check, not the wait for the directory)",
				path, d.cfg.PublishTimeout, datav1alpha1.AnnotationSkipCheckMountReadyTarget)
		case <-tick.C:
		}
	}
}

// waitForMount is NodePublishVolume's wait before it opens fluid_path: for
// a live FUSE mount there (waitForFuse), or, when the volume skips that
// check (skipsMountCheck), for the directory alone.
func (d *Driver) waitForMount(ctx context.Context, vc map[string]string, fluidPath string) error {
	skip, err := skipsMountCheck(vc)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "NodePublishVolume: %v", err)
	}
	if skip {
		return d.waitForDir(ctx, fluidPath)
	}
	return d.waitForFuse(ctx, fluidPath)
}
