package csi_test

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	corev1 "k8s.io/api/core/v1"
	mount "k8s.io/mount-utils"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	csidriver "github.com/sluice-data/sluice/csi"
	"github.com/sluice-data/sluice/tests/support/fusefs"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

const fuseDirEnv = "SLUICE_TEST_FUSE_DIR"

// TestHelperFuseProcess is not a test: run by startFuse in a child process,
// it serves the test FUSE file system at $SLUICE_TEST_FUSE_DIR until killed,
// standing in for a runtime's FUSE pod.
func TestHelperFuseProcess(t *testing.T) {
	dir := os.Getenv(fuseDirEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	srv, err := fusefs.Mount(dir)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	<-stop
	_ = srv.Unmount()
}

// startFuse runs the FUSE file system in a child process and waits until
// it is mounted at dir.
func startFuse(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFuseProcess$")
	cmd.Env = append(os.Environ(), fuseDirEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// SIGTERM lets the helper unmount; a killed one is already gone.
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(dir, "hello.txt")); err == nil {
			return cmd
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the FUSE process did not mount %s", dir)
	return nil
}

func mountsAt(t *testing.T, path string) int {
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

// TestRecoveryAfterFuseRestart kills the FUSE process behind a published
// volume, restarts it, and checks that the recovery loop re-binds the
// target so it serves data again within 10 seconds, with one mount at the
// target (nothing stacked).
func TestRecoveryAfterFuseRestart(t *testing.T) {
	requireRoot(t)
	socket, d := startDriver(t)
	nc := nodeClient(t, socket)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := t.TempDir()
	fuseDir, target := filepath.Join(base, "fuse"), filepath.Join(base, "pod", "mount")
	if err := os.MkdirAll(fuseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	first := startFuse(t, fuseDir)
	podNS := env.Namespace(t)
	vc := map[string]string{datav1alpha1.VolumeAttrFluidPath: fuseDir,
		"csi.storage.k8s.io/pod.namespace": podNS, "csi.storage.k8s.io/pod.name": "reader"}
	pub := &csi.NodePublishVolumeRequest{VolumeId: "v", TargetPath: target, VolumeContext: vc,
		VolumeCapability: &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
			AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER}}}
	if _, err := nc.NodePublishVolume(ctx, pub); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_, _ = nc.NodeUnpublishVolume(context.Background(), &csi.NodeUnpublishVolumeRequest{VolumeId: "v", TargetPath: target})
	}()
	go d.RunRecovery(ctx, 200*time.Millisecond)

	// The FUSE process dies: the Pod's view breaks.
	crashFuse(t, first, fuseDir)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(target, "hello.txt")); err != nil && mount.IsCorruptedMnt(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the target did not break after the FUSE process was killed")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A new FUSE process clears the dead mount and mounts again, as a
	// restarted FUSE pod does.
	restart := time.Now()
	if err := mount.New("").Unmount(fuseDir); err != nil {
		t.Fatalf("clearing the dead FUSE mount: %v", err)
	}
	startFuse(t, fuseDir)
	deadline = restart.Add(10 * time.Second)
	for {
		data, err := os.ReadFile(filepath.Join(target, "hello.txt"))
		if err == nil && string(data) == fusefs.Contents["hello.txt"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the target did not serve data within 10s of the restart: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("target served data again %v after the FUSE restart", time.Since(restart))
	if n := mountsAt(t, target); n != 1 {
		t.Fatalf("%d mounts at the target after recovery, want 1", n)
	}
	events := &corev1.EventList{}
	if err := env.Client.List(testenv.Context(t), events, client.InNamespace(podNS)); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range events.Items {
		found = found || (e.Reason == csidriver.ReasonFuseRecovered && e.InvolvedObject.Name == "reader")
	}
	if !found {
		t.Fatalf("no %s event on the Pod: %v", csidriver.ReasonFuseRecovered, events.Items)
	}
}

// TestStageClearsABrokenFuseMount leaves a dead FUSE mount at fluid_path
// (its process was killed) and checks that NodeStageVolume unmounts it, so
// that the next FUSE pod can mount there.
func TestStageClearsABrokenFuseMount(t *testing.T) {
	requireRoot(t)
	socket, _ := startDriver(t)
	nc := nodeClient(t, socket)
	fuseDir := filepath.Join(t.TempDir(), "fuse")
	if err := os.MkdirAll(fuseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	crashFuse(t, startFuse(t, fuseDir), fuseDir)
	if _, err := os.Stat(fuseDir); !mount.IsCorruptedMnt(err) {
		t.Fatalf("expected a broken mount after the kill, stat says %v", err)
	}
	stage := &csi.NodeStageVolumeRequest{VolumeId: "broken", StagingTargetPath: t.TempDir(),
		VolumeCapability: &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
			AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}},
		VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: fuseDir}}
	if _, err := nc.NodeStageVolume(context.Background(), stage); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fuseDir); err != nil {
		t.Fatalf("fluid_path still broken after staging: %v", err)
	}
	if n := mountsAt(t, fuseDir); n != 0 {
		t.Fatalf("%d mounts left at fluid_path", n)
	}
}
