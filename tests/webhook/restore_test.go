package webhook_test

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestARestoreLocationIsRefusedNotIgnored (issue 32, point 3), through the
// real API server: a Dataset served by an engine that cannot restore from
// a DataBackup is refused spec.dataRestoreLocation, naming the field and
// why, instead of starting without its metadata; an Alluxio Dataset may
// restore from a claim, and from a node's directory only where the
// local-mount guard allows host paths (by default nowhere).
func TestARestoreLocationIsRefusedNotIgnored(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: "imagenet"}, ds); err != nil {
		t.Fatal(err)
	}
	ds.Spec.DataRestoreLocation = &datav1alpha1.DataRestoreLocation{Path: "pvc://backups/imagenet"}
	err := env.Client.Update(ctxT(t), ds)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.dataRestoreLocation: Sluice's JuiceFS engine cannot restore a Dataset from a DataBackup") {
		t.Fatalf("a restore location on a JuiceFS Dataset: %v; want it refused naming the field", err)
	}

	if err := env.Client.Create(ctxT(t), alluxioRuntime("restored", ns)); err != nil {
		t.Fatal(err)
	}
	restored := testobj.Dataset("restored", ns, testobj.WithMounts("s3://bucket/restored"))
	restored.Spec.DataRestoreLocation = &datav1alpha1.DataRestoreLocation{Path: "local:///var/lib/backups", NodeName: "node-1"}
	if err := env.Client.Create(ctxT(t), restored.DeepCopy()); err == nil || !strings.Contains(err.Error(), "local-mount") ||
		!strings.Contains(err.Error(), "spec.dataRestoreLocation.path") {
		t.Fatalf("an Alluxio Dataset restored from a host directory: %v; want it denied by the local-mount guard", err)
	}
	restored.Spec.DataRestoreLocation = &datav1alpha1.DataRestoreLocation{Path: "pvc://backups/restored"}
	if err := env.Client.Create(ctxT(t), restored); err != nil {
		t.Fatalf("an Alluxio Dataset restored from a claim: %v", err)
	}
}
