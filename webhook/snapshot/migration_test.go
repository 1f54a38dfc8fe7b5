package snapshot

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestMigrationFacts: a DataMigrating Dataset's volume carries the
// DataMigrate its claims name and whether it blocks readers; a Dataset
// that is not migrating carries none, and a holder that cannot be read is
// reported as not found.
func TestMigrationFacts(t *testing.T) {
	ctx := context.Background()
	dataset := func(phase datav1alpha1.DatasetPhase, holder string) *datav1alpha1.Dataset {
		ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "mine"}, Status: datav1alpha1.DatasetStatus{Phase: phase}}
		if holder != "" {
			ds.Status.OperationRef = map[string]string{"DataMigrate": holder}
		}
		return ds
	}
	migrate := func(name string, block bool) *datav1alpha1.DataMigrate {
		return &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name}, Spec: datav1alpha1.DataMigrateSpec{Block: block}}
	}
	for _, tc := range []struct {
		name string
		ds   *datav1alpha1.Dataset
		objs []client.Object
		want *MigrationFacts
	}{
		{"bound", dataset(datav1alpha1.BoundDatasetPhase, ""), nil, nil},
		{"not blocking", dataset(datav1alpha1.DataMigratingDatasetPhase, "nightly"), []client.Object{migrate("nightly", false)}, &MigrationFacts{Name: "nightly", Found: true}},
		{"blocking", dataset(datav1alpha1.DataMigratingDatasetPhase, "nightly"), []client.Object{migrate("nightly", true)}, &MigrationFacts{Name: "nightly", Found: true, Block: true}},
		{"holder gone", dataset(datav1alpha1.DataMigratingDatasetPhase, "nightly"), nil, &MigrationFacts{Name: "nightly"}},
		{"no holder", dataset(datav1alpha1.DataMigratingDatasetPhase, ""), []client.Object{migrate("nightly", false)}, &MigrationFacts{}},
	} {
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "mine",
			Labels: map[string]string{datav1alpha1.LabelDatasetNamespace: "team-a", datav1alpha1.LabelDatasetName: "mine"}}}
		r := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(append(tc.objs, tc.ds, pvc)...).Build()
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "team-a"}, Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data",
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "mine"}}}}}}
		vols, err := (&Gatherer{Reader: r}).DatasetVolumes(ctx, "team-a", pod)
		if err != nil || len(vols) != 1 {
			t.Fatalf("%s: %+v %v", tc.name, vols, err)
		}
		got := vols[0].Dataset.Migration
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%s: migration facts %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
