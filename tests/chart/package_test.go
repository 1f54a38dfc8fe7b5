package chart_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestPackageSetsAppVersion runs `make chart`'s packager and loads its
// output with Helm's loader: the same files as the chart directory, and
// appVersion, so the default image tag, set to the version built.
func TestPackageSetsAppVersion(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("go", "run", "./hack/chartpackage", "-chart", "charts/sluice", "-output", out, "-app-version", "v9.9.9-rc.1")
	cmd.Dir = testenv.RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chartpackage: %v\n%s", err, b)
	}
	dirChart := loadChart(t)
	packaged, err := loader.Load(filepath.Join(out, "sluice-"+dirChart.Metadata.Version+".tgz"))
	if err != nil {
		t.Fatalf("helm cannot load the package: %v", err)
	}
	if packaged.Metadata.AppVersion != "v9.9.9-rc.1" {
		t.Errorf("appVersion %q", packaged.Metadata.AppVersion)
	}
	if imgs := packaged.Metadata.Annotations["artifacthub.io/images"]; !strings.Contains(imgs, "image: ghcr.io/sluice-data/sluice:v9.9.9-rc.1\n") {
		t.Errorf("artifacthub.io/images does not name the packaged version's image:\n%s", imgs)
	}
	if packaged.Metadata.Version != dirChart.Metadata.Version || packaged.Metadata.KubeVersion != dirChart.Metadata.KubeVersion {
		t.Errorf("metadata changed: %+v", packaged.Metadata)
	}
	var a, b []string
	for _, f := range dirChart.Raw {
		a = append(a, f.Name)
	}
	for _, f := range packaged.Raw {
		b = append(b, f.Name)
	}
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Errorf("the package holds %v, the chart directory %v", b, a)
	}
	rel, err := dryRun(packaged, nil, namespace)
	if err != nil {
		t.Fatal(err)
	}
	img := container(t, find(t, objects(t, rel.Manifest), "Deployment", "sluice-webhook"), "webhook")["image"]
	if img != "ghcr.io/sluice-data/sluice:v9.9.9-rc.1" {
		t.Errorf("the packaged chart runs image %v", img)
	}
}
