package datapath_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	csipb "github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/csi"
)

// startCSI serves the CSI node plugin with real mounts on a socket in a
// temp dir, as the plugin's DaemonSet runs it, and returns a node client.
func startCSI(tb testing.TB) csipb.NodeClient {
	tb.Helper()
	dir := tb.TempDir()
	socket := filepath.Join(dir, "csi.sock")
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := csi.New(csi.Config{
		NodeID: nodeName, Endpoint: "unix://" + socket, Mounter: csi.NewSyscallMounter(),
		Labeler: &csi.KubeLabeler{Client: cs}, Fuse: &csi.KubeLabeler{Client: cs}, Events: &csi.KubeEvents{Client: cs, Node: nodeName},
		StateDir: filepath.Join(dir, "state"), PublishTimeout: 10 * time.Second, PollInterval: 50 * time.Millisecond,
		FuseRoot: os.TempDir(), // the test's stand-in for /runtime-mnt is a temporary directory
	})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = d.Serve(ctx); close(done) }()
	tb.Cleanup(func() { cancel(); <-done })
	for range 200 {
		if _, err := os.Stat(socket); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return csipb.NewNodeClient(conn)
}

// staged is a Dataset's PV staged on the node by the CSI plugin, as the
// kubelet stages it once for every Pod of the node that uses it.
type staged struct {
	nc      csipb.NodeClient
	pv      *corev1.PersistentVolume
	path    string
	mode    csipb.VolumeCapability_AccessMode_Mode
	podsDir string
}

// stage stages the Dataset's PV (its CSI attributes as the controller
// writes them, with the FUSE path under the pod's root), undoing it when
// the test ends.
func stage(tb testing.TB, nc csipb.NodeClient, pv *corev1.PersistentVolume) *staged {
	tb.Helper()
	base := tb.TempDir()
	s := &staged{nc: nc, pv: pv, path: filepath.Join(base, "staging"), podsDir: filepath.Join(base, "pods"),
		mode: csipb.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER}
	if err := os.MkdirAll(s.path, 0o755); err != nil {
		tb.Fatal(err)
	}
	if len(pv.Spec.AccessModes) == 1 && pv.Spec.AccessModes[0] == corev1.ReadOnlyMany {
		s.mode = csipb.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY
	}
	src := pv.Spec.CSI
	if _, err := nc.NodeStageVolume(context.Background(), &csipb.NodeStageVolumeRequest{VolumeId: src.VolumeHandle, StagingTargetPath: s.path,
		VolumeCapability: s.capability(), VolumeContext: src.VolumeAttributes}); err != nil {
		tb.Fatalf("NodeStageVolume: %v", err)
	}
	tb.Cleanup(func() {
		_, _ = nc.NodeUnstageVolume(context.Background(), &csipb.NodeUnstageVolumeRequest{VolumeId: src.VolumeHandle, StagingTargetPath: s.path})
	})
	return s
}

func (s *staged) capability() *csipb.VolumeCapability {
	return &csipb.VolumeCapability{AccessType: &csipb.VolumeCapability_Mount{Mount: &csipb.VolumeCapability_MountVolume{}},
		AccessMode: &csipb.VolumeCapability_AccessMode{Mode: s.mode}}
}

// publish publishes the staged volume at a target path of the named Pod
// (readOnly as a Pod's read-only claim volume asks), unpublishing it when
// the test ends, and returns the target path.
func (s *staged) publish(tb testing.TB, pod string, readOnly bool) string {
	tb.Helper()
	target := filepath.Join(s.podsDir, pod, "volumes", "mount")
	src := s.pv.Spec.CSI
	if _, err := s.nc.NodePublishVolume(context.Background(), &csipb.NodePublishVolumeRequest{VolumeId: src.VolumeHandle, StagingTargetPath: s.path,
		TargetPath: target, VolumeCapability: s.capability(), Readonly: readOnly, VolumeContext: src.VolumeAttributes}); err != nil {
		tb.Fatalf("NodePublishVolume for pod %s: %v", pod, err)
	}
	tb.Cleanup(func() {
		_, _ = s.nc.NodeUnpublishVolume(context.Background(), &csipb.NodeUnpublishVolumeRequest{VolumeId: src.VolumeHandle, TargetPath: target})
	})
	return target
}

// pvOf is the Dataset's PV as the controller creates it for the runtime's
// FUSE volume, the FUSE path moved under the pod's root.
func pvOf(tb testing.TB, s sample, r rendered, p *pod) *corev1.PersistentVolume {
	tb.Helper()
	pv, err := volume.PV(s.Dataset, volume.Spec{FluidPath: p.Path(r.Volume.Path), MountType: r.Volume.MountType,
		RuntimeName: s.Runtime.Name, RuntimeNamespace: s.Runtime.Namespace, CleanPolicy: string(r.Volume.CleanPolicy)})
	if err != nil {
		tb.Fatal(err)
	}
	return pv
}
