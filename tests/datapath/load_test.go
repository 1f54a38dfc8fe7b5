package datapath_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/thin"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// loadFile is the documented DataLoad of the rclone sample.
var loadFile = filepath.Join(testenv.RepoRoot(), "config", "samples", "thin-rclone", "dataload.yaml")

// sluiceImage stands for the controller's --sluice-image: the load
// container's image, which the test checks and does not pull.
const sluiceImage = "ghcr.io/sluice-data/sluice:datapath"

// loadSampleLoad reads the sample's DataLoad, in the test's namespace.
func loadSampleLoad(tb testing.TB, namespace string) *datav1alpha1.DataLoad {
	tb.Helper()
	data, err := os.ReadFile(loadFile)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := utilyaml.ToJSON(data)
	if err != nil {
		tb.Fatalf("%s: %v", loadFile, err)
	}
	dl := &datav1alpha1.DataLoad{}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(dl); err != nil {
		tb.Fatalf("%s: %v", loadFile, err)
	}
	dl.Namespace, dl.Spec.Dataset.Namespace = namespace, namespace
	return dl
}

// loadContainer renders the DataLoad with the Thin engine, resolved
// through the API server as the operation reconciler resolves it, and the
// Helm SDK, and returns the Job's one container as its process sees it
// (after the kubelet's expansion) and the claim its volume names.
func loadContainer(tb testing.TB, s sample, dl *datav1alpha1.DataLoad) (corev1.Container, string) {
	tb.Helper()
	e, err := thin.Engine{SluiceImage: sluiceImage}.Resolve(testenv.Context(tb), env.Client, s.Runtime)
	if err != nil {
		tb.Fatal(err)
	}
	release := "photos-load"
	rel, err := e.Operation(engines.OperationRequest{Op: dl, Dataset: s.Dataset, Runtime: s.Runtime, Release: release})
	if err != nil {
		tb.Fatal(err)
	}
	op := enginetest.RenderOperation(tb, rel, release, s.Dataset.Namespace)
	spec := op.Pod().Spec
	if len(spec.Containers) != 1 || len(spec.InitContainers) != 0 || len(spec.Containers[0].VolumeMounts) != 1 {
		tb.Fatalf("the load pod: containers %+v, init containers %+v", spec.Containers, spec.InitContainers)
	}
	c := enginetest.Effective(spec.Containers[0])
	v := enginetest.Volume(spec, c.VolumeMounts[0].Name)
	if v == nil || v.PersistentVolumeClaim == nil {
		tb.Fatalf("the load container mounts %+v, not a claim", v)
	}
	return c, v.PersistentVolumeClaim.ClaimName
}

// runLoad runs the load container's command line as a local process, with
// the path where it mounts the Dataset rewritten to dir (where the CSI
// plugin published the volume for the load pod) and nothing else changed;
// `sluice` is this test binary, as for the FUSE pod. It fails the test
// unless the command succeeds within two minutes, and returns the
// command line it ran and the output.
func runLoad(tb testing.TB, t tools, c corev1.Container, dir string) ([]string, string) {
	tb.Helper()
	mount := c.VolumeMounts[0].MountPath
	var argv []string
	rewritten := 0
	for _, a := range append(append([]string{}, c.Command...), c.Args...) {
		flag, value, isFlag := strings.Cut(a, "=")
		switch {
		case a == mount:
			a, rewritten = dir, rewritten+1
		case isFlag && strings.HasPrefix(flag, "-") && value == mount:
			a, rewritten = flag+"="+dir, rewritten+1
		}
		argv = append(argv, a)
	}
	if rewritten != 1 {
		tb.Fatalf("the load command %q names its mount %s %d times, want once", c.Command, mount, rewritten)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(t.bin, argv[0]), argv[1:]...) // the image's PATH
	cmd.Args[0] = argv[0]
	cmd.Env = []string{"PATH=" + t.bin, "HOME=" + tb.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("the load command %q: %v\n%s", argv, err, out)
	}
	return argv, string(out)
}
