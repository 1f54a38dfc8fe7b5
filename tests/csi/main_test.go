package csi_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/csi"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var env *testenv.Env

const nodeName = "node-1"

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	if os.Getenv(fuseDirEnv) != "" { // a FUSE helper process needs no control plane
		os.Exit(m.Run())
	}
	os.Exit(testenv.MainWith(m, &env, testenv.Options{}, func(ctx context.Context, e *testenv.Env) error {
		return e.Client.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}})
	}))
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("real mounts need root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("/dev/fuse is missing")
	}
}

// startDriver serves a driver with real mounts on a socket in a temp dir.
func startDriver(t *testing.T) (endpoint string, d *csi.Driver) {
	t.Helper()
	dir := t.TempDir()
	socket := filepath.Join(dir, "csi.sock")
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	d, err = csi.New(csi.Config{
		NodeID: nodeName, Endpoint: "unix://" + socket, Mounter: csi.NewSyscallMounter(),
		Labeler: &csi.KubeLabeler{Client: cs}, Fuse: &csi.KubeLabeler{Client: cs}, Events: &csi.KubeEvents{Client: cs, Node: nodeName}, StateDir: filepath.Join(dir, "state"),
		PublishTimeout: 5 * time.Second, PollInterval: 50 * time.Millisecond, FuseRoot: os.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = d.Serve(ctx) }()
	for range 100 {
		if _, err := os.Stat(socket); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return socket, d
}
