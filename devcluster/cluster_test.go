package devcluster

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDevDemo runs `sluice dev --demo --exit` in-process: a real control
// plane, the CRDs and webhook configuration from the embedded config, the
// webhook, and the demo Pods, whose injections must be printed.
func TestDevDemo(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "bin", "kube-apiserver")); err != nil {
		t.Skip("bin/kube-apiserver missing; `make test` builds it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := runDev(ctx, &out, devOptions{assets: filepath.Join("..", "bin"), kubeconfig: kubeconfig, demo: true, exit: true}); err != nil {
		t.Fatalf("dev: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"Sluice dev cluster ready: API server",
		"the controller bound the Dataset and created its PV and PVC",
		"preferred node affinity (weight 100): fluid.io/s-demo-imagenet In [true]",
		"container train mount /data propagation HostToContainer",
		"native sidecar fluid-fuse-0",
		"volume data -> hostPath /runtime-mnt/juicefs/demo/imagenet/juicefs-fuse",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if data, err := os.ReadFile(kubeconfig); err != nil || !bytes.Contains(data, []byte("server: https://127.0.0.1")) {
		t.Errorf("kubeconfig not written: %v", err)
	}
}
