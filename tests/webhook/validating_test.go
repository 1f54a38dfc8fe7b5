package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

func dataset(t *testing.T, ns, name string) *datav1alpha1.Dataset {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctxT(t), types.NamespacedName{Namespace: ns, Name: name}, ds); err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestConcurrentDataLoadsExactlyOneWins sends 50 DataLoad creates for one
// Dataset at once through the real API server: exactly one is admitted and
// the 49 others are denied naming it.
func TestConcurrentDataLoadsExactlyOneWins(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	const n = 50
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []string
		denials []string
		others  []error
	)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dl := testobj.DataLoad(fmt.Sprintf("warmup-%02d", i), ns, "imagenet")
			<-start
			err := env.Client.Create(context.Background(), dl)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				winners = append(winners, dl.Name)
			case apierrors.IsForbidden(err):
				denials = append(denials, err.Error())
			default:
				others = append(others, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(others) > 0 {
		t.Fatalf("unexpected errors: %v", others)
	}
	if len(winners) != 1 || len(denials) != n-1 {
		t.Fatalf("%d admitted (%v), %d denied; want exactly 1 and %d", len(winners), winners, len(denials), n-1)
	}
	for _, d := range denials {
		if !strings.Contains(d, "is held by DataLoad "+winners[0]) || !strings.Contains(d, "rule operation-exclusive") {
			t.Fatalf("denial does not name the holder %s: %s", winners[0], d)
		}
	}
	if got := dataset(t, ns, "imagenet").Status.OperationRef["DataLoad"]; got != winners[0] {
		t.Fatalf("status.operationRef[DataLoad] = %q, want %q", got, winners[0])
	}
}

func TestClaimsReleaseAndDryRun(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	ctx := ctxT(t)

	// A dry-run create is checked but claims nothing.
	if err := env.Client.Create(ctx, testobj.DataLoad("dry", ns, "imagenet"), client.DryRunAll); err != nil {
		t.Fatalf("dry-run create: %v", err)
	}
	if ref := dataset(t, ns, "imagenet").Status.OperationRef; len(ref) != 0 {
		t.Fatalf("a dry run claimed the dataset: %v", ref)
	}

	// A claim whose operation was never stored holds within the grace period...
	ds := dataset(t, ns, "imagenet")
	ds.Status.OperationRef = map[string]string{"DataLoad": "ghost"}
	ds.Status.OperationClaims = []datav1alpha1.OperationClaim{{Kind: "DataLoad", Name: "ghost", ClaimedAt: metav1.Now()}}
	if err := env.Client.Status().Update(ctx, ds); err != nil {
		t.Fatal(err)
	}
	err := env.Client.Create(ctx, testobj.DataLoad("a", ns, "imagenet"))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "held by DataLoad ghost") {
		t.Fatalf("a fresh claim must hold: %v", err)
	}
	// ...and is released once older than it.
	ds = dataset(t, ns, "imagenet")
	ds.Status.OperationClaims[0].ClaimedAt = metav1.NewTime(time.Now().Add(-time.Hour))
	if err := env.Client.Status().Update(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, testobj.DataLoad("a", ns, "imagenet")); err != nil {
		t.Fatalf("a stale claim must be released: %v", err)
	}
	if got := dataset(t, ns, "imagenet").Status.OperationRef["DataLoad"]; got != "a" {
		t.Fatalf("holder = %q, want a", got)
	}

	// A finished holder releases the Dataset.
	a := &datav1alpha1.DataLoad{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "a"}, a); err != nil {
		t.Fatal(err)
	}
	a.Status.Phase = datav1alpha1.PhaseComplete
	if err := env.Client.Status().Update(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, testobj.DataLoad("b", ns, "imagenet")); err != nil {
		t.Fatalf("a finished holder must release: %v", err)
	}

	// DataProcess does not conflict with DataLoad; DataMigrate conflicts with both.
	dp := &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns}, Spec: datav1alpha1.DataProcessSpec{
		Dataset:   datav1alpha1.TargetDatasetWithMountPath{Name: "imagenet", MountPath: "/data"},
		Processor: datav1alpha1.Processor{Script: &datav1alpha1.ScriptProcessor{Source: "ls"}}}}
	if err := env.Client.Create(ctx, dp); err != nil {
		t.Fatalf("a DataProcess beside a DataLoad: %v", err)
	}
	dm := &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: ns}, Spec: datav1alpha1.DataMigrateSpec{
		From: datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://b/p"}},
		To:   datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: "imagenet", Namespace: ns}}}}
	err = env.Client.Create(ctx, dm)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "DataLoad b") || !strings.Contains(err.Error(), "DataProcess p") {
		t.Fatalf("a DataMigrate must wait for every other operation: %v", err)
	}
}

func TestValidatingRules(t *testing.T) {
	ns := env.Namespace(t)
	mem := func(q string) datav1alpha1.Level { return testobj.Level(datav1alpha1.Memory, "/dev/shm", q) }
	ssd := func(path string) datav1alpha1.Level { return testobj.Level(datav1alpha1.SSD, path, "10Gi") }
	tests := []struct {
		name string
		obj  func() client.Object
		want string // "" means admitted
	}{
		// Alluxio: the JuiceFS engine refuses levels after the first (engine-field).
		{"levels in order", func() client.Object {
			rt := alluxioRuntime("ok", ns)
			rt.Spec.TieredStore.Levels = []datav1alpha1.Level{mem("1Gi"), ssd("/mnt/a")}
			return rt
		}, ""},
		{"MEM after SSD", func() client.Object { return testobj.JuiceFSRuntime("order", ns, 1, ssd("/mnt/a"), mem("1Gi")) },
			"spec.tieredstore.levels[1].mediumtype: levels go fastest first (MEM, SSD, HDD): MEM must not follow SSD (rule tieredstore-order)"},
		{"medium twice", func() client.Object { return testobj.JuiceFSRuntime("twice", ns, 1, ssd("/mnt/a"), ssd("/mnt/b")) },
			"medium SSD is used by more than one level (rule tieredstore-order)"},
		{"duplicate path", func() client.Object {
			return testobj.JuiceFSRuntime("dup", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/a,/mnt/a", "10Gi"))
		}, `spec.tieredstore.levels[0].path: path "/mnt/a" is used more than once in the runtime's tieredstore (rule tieredstore-duplicate-path)`},
		{"MEM over the worker memory limit", func() client.Object {
			rt := testobj.JuiceFSRuntime("memlimit", ns, 1, mem("8Gi"))
			rt.Spec.Worker.Resources.Limits = map[corev1ResourceName]resourceQuantity{"memory": mustQuantity("4Gi")}
			return rt
		}, "spec.tieredstore.levels[0].quota: the MEM tier (8589934592 bytes) exceeds the worker memory limit (4294967296 bytes) (rule tieredstore-mem-limit)"},
		{"name is not DNS-1035", func() client.Object { return testobj.JuiceFSRuntime("9lives", ns, 1) }, `metadata.name: "9lives" must be a DNS-1035 label`},
		{"operation in another namespace's dataset", func() client.Object {
			dl := testobj.DataLoad("cross", ns, "imagenet")
			dl.Spec.Dataset.Namespace = "elsewhere"
			return dl
		}, `spec.dataset.namespace: the Dataset must be in the operation's namespace`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := env.Client.Create(ctxT(t), tt.obj())
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("denied: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("want a denial containing %q, got %v", tt.want, err)
			}
		})
	}

	// A second runtime kind with the same name as an existing one. The
	// webhook reads the AlluxioRuntime "ok" (created by the first case)
	// from its cache, which sees it a moment after the create: probe with
	// dry runs until it judges by it, then create for real.
	jfs := testobj.JuiceFSRuntime("ok", ns, 1, mem("1Gi"))
	const conflict = `AlluxioRuntime named "ok" already exists`
	waitFor(t, 5*time.Second, "the webhook to judge the JuiceFSRuntime by the AlluxioRuntime of its name", func() bool {
		err := env.Client.Create(ctxT(t), jfs.DeepCopy(), client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), conflict)
	})
	if err := env.Client.Create(ctxT(t), jfs); err == nil || !strings.Contains(err.Error(), conflict) {
		t.Fatalf("want runtime-name-conflict, got %v", err)
	}
}

func TestDatasetMountsCannotChangeWhileHeld(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	if err := env.Client.Create(ctxT(t), testobj.DataLoad("warm", ns, "imagenet")); err != nil {
		t.Fatal(err)
	}
	ds := dataset(t, ns, "imagenet")
	ds.Spec.Mounts[0].MountPoint = "s3://bucket/elsewhere"
	err := env.Client.Update(ctxT(t), ds)
	if err == nil || !strings.Contains(err.Error(), "spec.mounts: cannot change while DataLoad warm holds the Dataset") {
		t.Fatalf("want dataset-mounts-held, got %v", err)
	}
	ds = dataset(t, ns, "imagenet")
	ds.Labels = map[string]string{"team": "a"}
	if err := env.Client.Update(ctxT(t), ds); err != nil {
		t.Fatalf("other edits stay allowed: %v", err)
	}
}
