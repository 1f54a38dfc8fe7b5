package csi_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	sluicecsi "github.com/sluice-data/sluice/csi"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestCommand runs `sluice csi` through its command line, as the plugin
// DaemonSet does: flags, the cluster connection for node labels (the root
// command's --kubeconfig is tested in package main), the built-in kubelet
// registration socket, and a clean stop when its context ends.
func TestCommand(t *testing.T) {
	const node = "node-cmd"
	if err := env.Client.Create(testenv.Context(t), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	socket, regDir := filepath.Join(dir, "csi.sock"), filepath.Join(dir, "registry")
	if err := os.MkdirAll(regDir, 0o755); err != nil {
		t.Fatal(err)
	}
	healthAddr, err := testenv.PickFreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	cmd := sluicecsi.NewCommand(func() (*rest.Config, error) { return env.Config, nil })
	cmd.SetArgs([]string{
		"--endpoint", "unix://" + socket, "--nodeid", node,
		"--state-dir", filepath.Join(dir, "state"), "--registration-dir", regDir, "--fuse-root", dir,
		"--kubelet-endpoint", "/var/lib/kubelet/plugins/fuse.csi.fluid.io/csi.sock",
		"--driver-version", "v9.9.9-test", "--recovery-interval", "1s", "--health-addr", healthAddr,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()

	reg := &sluicecsi.Registrar{Dir: regDir, DriverName: sluicecsi.DriverName}
	waitForSocket(t, socket, done)
	waitForSocket(t, reg.Socket(), done)

	conn := dial(t, socket)
	info, err := csi.NewIdentityClient(conn).GetPluginInfo(ctx, &csi.GetPluginInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if info.GetName() != sluicecsi.DriverName || info.GetVendorVersion() != "v9.9.9-test" {
		t.Fatalf("GetPluginInfo = %s %s, want %s v9.9.9-test", info.GetName(), info.GetVendorVersion(), sluicecsi.DriverName)
	}
	nc := csi.NewNodeClient(conn)
	ni, err := nc.NodeGetInfo(ctx, &csi.NodeGetInfoRequest{})
	if err != nil || ni.GetNodeId() != node {
		t.Fatalf("NodeGetInfo = %v, %v; want node %s", ni, err, node)
	}

	// NodeStageVolume labels the node through the client the command connected.
	const labelKey = "fluid.io/f-cmd-ds"
	fuseDir := filepath.Join(dir, "fuse")
	if err := os.MkdirAll(fuseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	capability := &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}}
	if _, err := nc.NodeStageVolume(ctx, &csi.NodeStageVolumeRequest{VolumeId: "cmd-ds", StagingTargetPath: filepath.Join(dir, "staging"), VolumeCapability: capability,
		VolumeContext: map[string]string{datav1alpha1.VolumeAttrFluidPath: fuseDir, datav1alpha1.VolumeAttrNodeSelectorKey: labelKey}}); err != nil {
		t.Fatal(err)
	}
	n := &corev1.Node{}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: node}, n); err != nil {
		t.Fatal(err)
	}
	if n.Labels[labelKey] != "true" {
		t.Fatalf("node labels after NodeStageVolume = %v, want %s=true", n.Labels, labelKey)
	}

	// The liveness probe the chart gives the plugin container.
	resp, err := http.Get("http://" + healthAddr + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz of a serving plugin: %v %v", resp, err)
	}
	resp.Body.Close()

	// The kubelet's plugin watcher asks the registration socket what it serves.
	rc := registerapi.NewRegistrationClient(dial(t, reg.Socket()))
	pi, err := rc.GetInfo(ctx, &registerapi.InfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if pi.GetType() != registerapi.CSIPlugin || pi.GetName() != sluicecsi.DriverName || pi.GetEndpoint() != "/var/lib/kubelet/plugins/fuse.csi.fluid.io/csi.sock" {
		t.Fatalf("registration GetInfo = %+v", pi)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("sluice csi stopped with %v, want a clean stop", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sluice csi did not stop within 10s of its context ending")
	}
}

// TestCommandRejectsBadFlags shows flag mistakes are reported, naming the
// flag, before the command touches the cluster.
func TestCommandRejectsBadFlags(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no node":      {[]string{"--endpoint", "unix:///tmp/x.sock"}, "node"},
		"tcp endpoint": {[]string{"--nodeid", "n", "--endpoint", "tcp://127.0.0.1:1"}, "tcp://127.0.0.1:1"},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := sluicecsi.NewCommand(func() (*rest.Config, error) { return nil, errors.New("no cluster in this test") })
			cmd.SetArgs(tc.args)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.ExecuteContext(testenv.Context(t))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func dial(t *testing.T, socket string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func waitForSocket(t *testing.T, path string, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("sluice csi exited before serving %s: %v", path, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("%s did not appear within 10s", path)
}
