package operations_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// policyData stores a policy ConfigMap of the policy namespace with one
// data file, removed when the test ends.
func policyData(t *testing.T, name, yaml string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: policyNamespace, Labels: map[string]string{policies.BundleLabel: "true"}},
		Data: map[string]string{"conflicts.yaml": yaml}}
	create(t, cm)
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })
	return cm
}

// TestTheControllerFollowsThePolicyConflictTable (reliability audit L7):
// the controller claims with the conflict table of the policy data, as
// the webhook's policies do, not the embedded default. With DataLoads made
// non-exclusive by a policy ConfigMap, a second DataLoad executes beside
// the first (by default it waits); a ConfigMap the webhook reports it
// rejected is left out, as the webhook serves without it; and a table that
// is not one keeps the operation Pending, saying so.
func TestTheControllerFollowsThePolicyConflictTable(t *testing.T) {
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	seed(t, ns, "imagenet", engineFake)
	cm := policyData(t, "parallel-loads", "validating: {operations: {conflicts: {DataLoad: [DataMigrate]}}}\n")

	first, second := dataLoad(ns, "first", "imagenet"), dataLoad(ns, "second", "imagenet")
	create(t, first)
	reaches(t, first, datav1alpha1.PhaseExecuting, 10*time.Second)
	create(t, second)
	reaches(t, second, datav1alpha1.PhaseExecuting, 10*time.Second)
	if got := holders(t, ns, "imagenet"); got != "DataLoad first,DataLoad second" {
		t.Fatalf("holders = %q, want both DataLoads", got)
	}

	cm.Annotations = map[string]string{policies.StatusAnnotation: policies.StatusRejected("1 error occurred: a module of it does not compile")}
	if err := env.Client.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	third := dataLoad(ns, "third", "imagenet")
	create(t, third)
	eventually(t, 10*time.Second, "with the rejected ConfigMap left out, the third DataLoad waits for the others", func() bool {
		c := condition(t, third, operation.ConditionDatasetClaimed)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == operation.ReasonDatasetHeld
	})

	// A table that does not fit the policy data's schema is left out whole,
	// as the webhook leaves out (and reports) a ConfigMap that does not
	// load: the DataBackup is claimed under the default table, where it
	// does not conflict with DataLoads.
	policyData(t, "broken-table", "validating: {operations: {conflicts: {DataBackup: DataBackup}}}\n")
	backup := &datav1alpha1.DataBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly"},
		Spec: datav1alpha1.DataBackupSpec{Dataset: "imagenet", BackupPath: "pvc://backups/imagenet"}}
	create(t, backup)
	eventually(t, 10*time.Second, "a DataBackup beside a ConfigMap whose table does not load holds the Dataset under the default table", func() bool {
		return strings.Contains(holders(t, ns, "imagenet"), "DataBackup nightly")
	})
}
