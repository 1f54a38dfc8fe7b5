package testenv_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"k8s.io/client-go/discovery"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// The kube-apiserver in bin/ reports the Kubernetes release its tools module
// pins (stamped by tests/tools/kube/ldflags.sh). Helm checks a chart's
// kubeVersion against GitVersion, and the webhook's --native-sidecars=auto
// reads Major and Minor; an unstamped build reports v0.0.0-master.
func TestAPIServerReportsThePinnedKubernetesVersion(t *testing.T) {
	want := pinnedKubernetes(t)
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dc.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if got.GitVersion != want {
		t.Errorf("kube-apiserver reports gitVersion %q, want %q (the k8s.io/kubernetes version in tests/tools/kube/go.mod): rebuild with `make kube-binaries`", got.GitVersion, want)
	}
	// v1.37.2 → major "1", minor "37".
	parts := strings.SplitN(strings.TrimPrefix(want, "v"), ".", 3)
	if got.Major != parts[0] || got.Minor != parts[1] {
		t.Errorf("kube-apiserver reports major %q minor %q, want %q and %q", got.Major, got.Minor, parts[0], parts[1])
	}
}

// pinnedKubernetes is the version of k8s.io/kubernetes the kube tools module
// requires.
func pinnedKubernetes(t *testing.T) string {
	t.Helper()
	path := filepath.Join(testenv.RepoRoot(), "tests", "tools", "kube", "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == "k8s.io/kubernetes" {
			return r.Mod.Version
		}
	}
	t.Fatalf("%s does not require k8s.io/kubernetes", path)
	return ""
}
