package csi_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/fusefs"
)

// BenchmarkNodePublish measures NodePublishVolume over gRPC with the
// dataset's FUSE mount already live: the mount check, the sub-path check,
// the bind mount and the state record. Unpublishing is not timed.
func BenchmarkNodePublish(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("real mounts need root")
	}
	t := &testing.T{}
	socket, _ := startDriver(t)
	nc := nodeClient(t, socket)
	base := b.TempDir()
	fuseDir := filepath.Join(base, "fuse")
	if err := os.MkdirAll(fuseDir, 0o755); err != nil {
		b.Fatal(err)
	}
	srv, err := fusefs.Mount(fuseDir)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = srv.Unmount() }()
	capability := &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}}
	vc := map[string]string{datav1alpha1.VolumeAttrFluidPath: fuseDir, datav1alpha1.VolumeAttrSubPath: "train"}
	ctx := context.Background()
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		target := filepath.Join(base, "pods", fmt.Sprint(i), "mount")
		t0 := time.Now()
		_, err := nc.NodePublishVolume(ctx, &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: target, VolumeCapability: capability, VolumeContext: vc})
		samples = append(samples, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := nc.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "v", TargetPath: target}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1e3, "p50-ms")
	b.ReportMetric(float64(samples[int(0.99*float64(len(samples)-1))].Microseconds())/1e3, "p99-ms")
}
