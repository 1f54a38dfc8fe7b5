package helm

import (
	"context"
	"io"
	"testing"

	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
)

// countingDriver counts the queries that reach Helm's storage (for the
// Secrets driver, each is a LIST request).
type countingDriver struct {
	driver.Driver
	queries int
}

func (d *countingDriver) Query(labels map[string]string) ([]*release.Release, error) {
	d.queries++
	return d.Driver.Query(labels)
}

func TestEnsureReadsTheHistoryOncePerInstall(t *testing.T) {
	ctx := context.Background()
	c := NewMemoryClient("team-a", &kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}})
	counting := &countingDriver{Driver: driver.NewMemory()}
	c.cfg.Releases = storage.Init(counting)
	d := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}

	if _, act, err := c.Ensure(ctx, "demo", d); err != nil || act != ActionInstall {
		t.Fatalf("ensure: %s %v", act, err)
	}
	if counting.queries != 1 {
		t.Fatalf("an install read the release's history %d times, want once", counting.queries)
	}
	// The install went through the wrapped driver's writes: the record is
	// there, and a release that exists is not installed again.
	if rel, err := c.Latest("demo"); err != nil || rel == nil || rel.Version != 1 {
		t.Fatalf("latest after install: %+v %v", rel, err)
	}
	if _, act, err := c.Ensure(ctx, "demo", d); err != nil || act != ActionNone {
		t.Fatalf("second ensure: %s %v", act, err)
	}
}

func TestKnownHistoryAsksTheDriverAfterAWrite(t *testing.T) {
	mem := driver.NewMemory()
	known := &knownHistory{Driver: mem, name: "demo"}
	labels := map[string]string{"name": "demo", "owner": "helm"}
	if _, err := known.Query(labels); err != driver.ErrReleaseNotFound {
		t.Fatalf("known empty history: %v", err)
	}
	r := rel(1, release.StatusDeployed, "0.1.0", nil)
	r.Name, r.Namespace = "demo", "team-a"
	if err := known.Create("sh.helm.release.v1.demo.v1", r); err != nil {
		t.Fatal(err)
	}
	if got, err := known.Query(labels); err != nil || len(got) != 1 {
		t.Fatalf("history after a write: %d %v", len(got), err)
	}
	other := map[string]string{"name": "other", "owner": "helm"}
	if _, err := (&knownHistory{Driver: mem, name: "demo"}).Query(other); err != driver.ErrReleaseNotFound {
		t.Fatalf("another release's query must reach the driver: %v", err)
	}
}
