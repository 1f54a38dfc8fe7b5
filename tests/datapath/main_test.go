package datapath_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/engines/thin/rclonemount"
	"github.com/sluice-data/sluice/engines/thin/warmup"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var env *testenv.Env

const nodeName = "node-1"

// TestMain starts the control plane, unless this binary was started as
// `sluice` (through a link of that name, as the FUSE and load containers'
// commands name it): it then is the sluice binary's rclone-mount and
// warmup commands, the same cobra commands main.go adds.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "sluice" {
		root := &cobra.Command{Use: "sluice", SilenceUsage: true}
		root.AddCommand(rclonemount.NewCommand(), warmup.NewCommand())
		if err := root.Execute(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	ctrl.SetLogger(logr.Discard())
	os.Exit(testenv.MainWith(m, &env, testenv.Options{}, func(ctx context.Context, e *testenv.Env) error {
		return e.Client.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}})
	}))
}

// tools are the programs the data path runs.
type tools struct {
	rclone string // bin/rclone
	// bin is a directory with `sluice` (this test binary) and `rclone`, the
	// programs the FUSE image has on its PATH.
	bin string
}

// requireDataPath skips without root or /dev/fuse and fails, saying how
// to get it, without a program the data path needs.
func requireDataPath(tb testing.TB) tools {
	tb.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		tb.Skip("/dev/fuse is missing: the data path needs FUSE")
	}
	if os.Geteuid() != 0 {
		tb.Skip("the data path needs root: the CSI plugin bind-mounts and the FUSE mount is shared back as by a privileged pod")
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		tb.Fatal("fusermount3 is missing: rclone mount2 mounts through it, as in the FUSE image; install Debian's fuse3 (make test does, as root with apt-get: make fuse3)")
	}
	rclone := filepath.Join(testenv.BinDir(), "rclone")
	if _, err := os.Stat(rclone); err != nil {
		tb.Fatalf("%s is missing: run `make rclone` (make test builds it)", rclone)
	}
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	bin := tb.TempDir()
	for name, target := range map[string]string{"sluice": self, "rclone": rclone} {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			tb.Fatal(fmt.Errorf("linking %s: %w", name, err))
		}
	}
	return tools{rclone: rclone, bin: bin}
}
