package webhook_test

import (
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestPodsOfAMigratingDataset (issue 32, C11), through the real API
// server: while a DataMigrate migrates a Dataset (phase DataMigrating, the
// DataMigrate holding it), its Pods are admitted as Fluid admits them,
// unless the DataMigrate says block: true, when they are refused naming
// the DataMigrate and rule dataset-migrating.
func TestPodsOfAMigratingDataset(t *testing.T) {
	ns := env.Namespace(t)
	for _, tc := range []struct {
		dataset string
		block   bool
	}{{"free", false}, {"held", true}} {
		seedDataset(t, ns, tc.dataset, datav1alpha1.BoundDatasetPhase)
		dm := &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tc.dataset + "-in"}, Spec: datav1alpha1.DataMigrateSpec{
			From:  datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://bucket/" + tc.dataset + "/"}},
			To:    datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: tc.dataset, Namespace: ns}},
			Block: tc.block,
		}}
		if err := env.Client.Create(ctxT(t), dm); err != nil {
			t.Fatal(err)
		}
		// What the controller does when the DataMigrate starts: the Dataset
		// is DataMigrating, held by it.
		ds := &datav1alpha1.Dataset{}
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: tc.dataset}, ds); err != nil {
				return err
			}
			ds.Status.Phase = datav1alpha1.DataMigratingDatasetPhase
			ds.Status.OperationRef = map[string]string{string(datav1alpha1.DataMigrateKind): dm.Name}
			return env.Client.Status().Update(ctxT(t), ds)
		}); err != nil {
			t.Fatal(err)
		}
	}
	waitForCache()

	pod := datasetPod("reader", serverful, "free")
	pod.Namespace = ns
	if err := env.Client.Create(ctxT(t), pod); err != nil {
		t.Fatalf("a Pod of a Dataset a non-blocking DataMigrate migrates was refused: %v", err)
	}
	if a := pod.Spec.Affinity; a == nil || a.NodeAffinity == nil || len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		t.Errorf("the admitted Pod was not given the dataset's affinity, as a Pod of a Bound one is: %+v", pod.Spec.Affinity)
	}

	var err error
	waitFor(t, 5*time.Second, "the dataset-migrating denial", func() bool {
		held := datasetPod("blocked", serverful, "held")
		held.Namespace = ns
		err = env.Client.Create(ctxT(t), held)
		return err != nil
	})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("want Forbidden, got %v", err)
	}
	for _, want := range []string{"dataset " + ns + "/held", "DataMigrate held-in is migrating with block: true", "rule dataset-migrating"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("denial %q does not mention %q", err, want)
		}
	}
}
