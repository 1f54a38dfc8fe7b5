package e2eops_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// dataMigrateBlockDecidesReaders (issue 32, C11): while a DataMigrate runs
// into the Dataset (the controller has made it DataMigrating), a Pod of
// the Dataset is admitted as Fluid admits it; while one with block: true
// runs, a Pod is refused naming that DataMigrate and rule
// dataset-migrating.
func dataMigrateBlockDecidesReaders(t *testing.T) {
	t.Parallel()
	s := newScenario(t, 3*time.Minute)
	migrate := func(name string, block bool) *datav1alpha1.DataMigrate {
		return &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name}, Spec: datav1alpha1.DataMigrateSpec{
			From:        datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://datasets/extra/"}},
			To:          datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: datasetName, Namespace: s.ns, Path: "/extra"}},
			Block:       block,
			PodMetadata: holdRunning(),
		}}
	}
	reader := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name, Labels: map[string]string{datav1alpha1.LabelServerfulInject: "true"}},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
				Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: datasetName}}}},
			},
		}
	}
	migrating := func(holder string) func() (bool, error) {
		return func() (bool, error) {
			ds := s.dataset()
			return ds.Status.Phase == datav1alpha1.DataMigratingDatasetPhase && holders(ds) == "DataMigrate "+holder, nil
		}
	}

	free := migrate("free", false)
	s.create(free)
	s.waitFor("the Dataset to be DataMigrating, held by DataMigrate free", migrating("free"))
	s.create(reader("during-free"))

	if err := cluster.Client.Delete(s.ctx, free); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the Dataset to be Bound and free again", func() (bool, error) {
		ds := s.dataset()
		return ds.Status.Phase == datav1alpha1.BoundDatasetPhase && holders(ds) == "", nil
	})

	s.create(migrate("locked", true))
	s.waitFor("the Dataset to be DataMigrating, held by DataMigrate locked", migrating("locked"))
	var err error
	s.waitFor("a reader to be refused", func() (bool, error) {
		err = cluster.Client.Create(s.ctx, reader("during-locked"))
		return err != nil, nil
	})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "DataMigrate locked is migrating with block: true") ||
		!strings.Contains(err.Error(), "rule dataset-migrating") {
		t.Fatalf("a Pod of a Dataset a blocking DataMigrate migrates: %v; want it refused naming the DataMigrate and rule dataset-migrating", err)
	}
}
