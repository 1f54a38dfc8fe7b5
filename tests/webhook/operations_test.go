package webhook_test

import (
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// warnedClient is a client whose requests' warnings are collected.
func warnedClient(t *testing.T) (client.Client, *testenv.Warnings) {
	return testenv.WarnedClient(t, env.Config, env.Scheme)
}

// TestOperationAdmission sends data operations through the real API server
// to the validating webhook: OnEvent and a runAfter cycle are denied naming
// their rule and field; a runAfter naming a missing operation and an engine
// that cannot run the kind are admitted with warnings; operations that do
// not start at once (Cron, runAfter) are not claimed at admission, so they
// are admitted while another operation holds the Dataset.
func TestOperationAdmission(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	c, warned := warnedClient(t)

	onEvent := testobj.DataLoad("on-event", ns, "imagenet")
	onEvent.Spec.Policy = datav1alpha1.OnEvent
	if err := c.Create(ctxT(t), onEvent); !apierrors.IsForbidden(err) ||
		!strings.Contains(err.Error(), "spec.policy: OnEvent is not supported yet") || !strings.Contains(err.Error(), "rule operation-policy") {
		t.Fatalf("an OnEvent DataLoad: %v", err)
	}

	// The first operation holds the Dataset; one after it is admitted, with
	// a warning while it names an operation that does not exist.
	warm := testobj.DataLoad("warm", ns, "imagenet")
	warm.Spec.RunAfter = &datav1alpha1.OperationRef{ObjectRef: datav1alpha1.ObjectRef{Kind: datav1alpha1.DataProcessKind, Name: "train"}}
	holder := testobj.DataLoad("holder", ns, "imagenet")
	if err := c.Create(ctxT(t), holder); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctxT(t), warm); err != nil {
		t.Fatalf("a DataLoad after another, while the Dataset is held: %v", err)
	}
	if !strings.Contains(warned.String(), `spec.runAfter: DataProcess "train" does not exist (yet); this operation waits for it`) {
		t.Fatalf("warnings: %s", warned)
	}
	if got := dataset(t, ns, "imagenet").Status.OperationRef["DataLoad"]; got != "holder" {
		t.Fatalf("holders of DataLoad = %q, want only the operation that starts at once", got)
	}
	nightly := testobj.DataLoad("nightly", ns, "imagenet")
	nightly.Spec.Policy, nightly.Spec.Schedule = datav1alpha1.Cron, "0 2 * * *"
	if err := c.Create(ctxT(t), nightly); err != nil {
		t.Fatalf("a Cron DataLoad while the Dataset is held: %v", err)
	}

	// Closing the loop is denied, once the webhook's cache has warm.
	train := &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "train"}, Spec: datav1alpha1.DataProcessSpec{
		Dataset:   datav1alpha1.TargetDatasetWithMountPath{Name: "imagenet", MountPath: "/data"},
		Processor: datav1alpha1.Processor{Script: &datav1alpha1.ScriptProcessor{Source: "true"}},
		RunAfter:  &datav1alpha1.OperationRef{ObjectRef: datav1alpha1.ObjectRef{Kind: datav1alpha1.DataLoadKind, Name: "warm"}},
	}}
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for err = c.Create(ctxT(t), train.DeepCopy(), client.DryRunAll); err == nil && time.Now().Before(deadline); err = c.Create(ctxT(t), train.DeepCopy(), client.DryRunAll) {
		time.Sleep(100 * time.Millisecond)
	}
	err = c.Create(ctxT(t), train)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(),
		"spec.runAfter: the operations would wait for each other for ever: DataProcess train → DataLoad warm → DataProcess train (rule operation-run-after-cycle)") {
		t.Fatalf("a runAfter cycle: %v", err)
	}

	// The engine comes from the Dataset's status.runtimes as the webhook's
	// cache holds the Dataset; the waits above were for other objects and
	// do not show that the cache has seedDataset's status write. Probe
	// with dry runs, whose warnings are collected apart, until the webhook
	// warns, then create for real.
	backup := &datav1alpha1.DataBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly"}, Spec: datav1alpha1.DataBackupSpec{Dataset: "imagenet"}}
	cannotRun := "dataset " + ns + "/imagenet: the juicefs engine cannot run a DataBackup; the operation will fail (engines that can: alluxio)"
	probe, probeWarned := warnedClient(t)
	waitFor(t, 5*time.Second, "the webhook to judge the DataBackup by its Dataset's engine", func() bool {
		probeWarned.Reset()
		return probe.Create(ctxT(t), backup.DeepCopy(), client.DryRunAll) == nil && strings.Contains(probeWarned.String(), cannotRun)
	})
	if err := c.Create(ctxT(t), backup); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warned.String(), cannotRun) {
		t.Fatalf("warnings: %s", warned)
	}
}

// TestParallelMigrationAdmission: through the real API server, a parallel
// DataMigrate without the workers' ssh Secret is denied naming the field
// and rule operation-parallelism; parallelOptions on a migration in one
// pod are admitted with a warning that they are unused.
func TestParallelMigrationAdmission(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	c, warned := warnedClient(t)
	migrate := func(name string, parallelism int32, opts map[string]string) *datav1alpha1.DataMigrate {
		return &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: datav1alpha1.DataMigrateSpec{
			From:        datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://bucket/imagenet/"}},
			To:          datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: "imagenet", Namespace: ns}},
			Parallelism: parallelism, ParallelOptions: opts,
		}}
	}
	err := c.Create(ctxT(t), migrate("keyless", 3, nil), client.DryRunAll)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.parallelOptions.sshSecretName: required when spec.parallelism is above 1") ||
		!strings.Contains(err.Error(), "rule operation-parallelism") {
		t.Fatalf("a parallel DataMigrate without its ssh Secret: %v", err)
	}
	if err := c.Create(ctxT(t), migrate("parallel", 3, map[string]string{"sshSecretName": "migrate-ssh", "sshPort": "2222"}), client.DryRunAll); err != nil {
		t.Fatalf("a parallel DataMigrate with its ssh Secret: %v", err)
	}
	if err := c.Create(ctxT(t), migrate("single", 1, map[string]string{"sshSecretName": "migrate-ssh"}), client.DryRunAll); err != nil {
		t.Fatalf("a DataMigrate in one pod with parallelOptions: %v", err)
	}
	if !strings.Contains(warned.String(), "spec.parallelOptions: unused, as spec.parallelism is 1") {
		t.Fatalf("warnings: %s", warned)
	}
}
