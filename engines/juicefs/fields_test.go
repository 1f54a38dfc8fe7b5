package juicefs_test

import (
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestFieldsClassifyTheSchema: every JuiceFSRuntime spec field has a row in
// juicefs.Fields, and every row a field.
func TestFieldsClassifyTheSchema(t *testing.T) {
	enginetest.CheckClassified(t, enginetest.SpecSchema(t, enginetest.CRDFile("juicefsruntimes")), juicefs.Fields)
}

// TestHonouredFieldsReachTheChart: setting any honoured field changes the
// rendered release, apart from the few that act outside the chart.
func TestHonouredFieldsReachTheChart(t *testing.T) {
	c := renderCase()
	enginetest.CheckHonouredRendered(t, c, enginetest.SpecSchema(t, enginetest.CRDFile("juicefsruntimes")), juicefs.Fields, juicefsSamples,
		[]string{"spec.fuse.cleanPolicy", "spec.management.metadataSyncPolicy", "spec.tieredstore.levels[].mediumtype", "spec.management.cleanCachePolicy.gracePeriodSeconds", "spec.management.cleanCachePolicy.maxRetryAttempts"})
}

// TestTenantSafeFieldsStayOutOfHostContainers: no field the trust table
// calls tenant-safe changes what the privileged workers and FUSE run or
// mount (issue 30).
func TestTenantSafeFieldsStayOutOfHostContainers(t *testing.T) {
	enginetest.CheckTenantSafeStaysOut(t, renderCase(), enginetest.SpecSchema(t, enginetest.CRDFile("juicefsruntimes")), "JuiceFSRuntime", juicefs.Fields, juicefsSamples, enginetest.TierVolumeExempt)
}

// renderCase is the render tests' baseline, with the alternates some
// fields need.
func renderCase() enginetest.RenderCase {
	ds, rt := sample()
	c := enginetest.RenderCase{Engine: juicefs.Engine{}, Dataset: ds, Runtime: rt}
	// Volumes and claim templates reach a pod when its containers mount
	// them; an emptyDir's settings need an emptyDir tier.
	volDS, volRT := sample()
	volRT.Spec.Volumes = []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	volRT.Spec.Worker.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/extra"}}
	claimDS, claimRT := sample()
	claimRT.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{claimTemplate("1Gi")}
	claimRT.Spec.Worker.VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
	emptyDS, emptyRT := sample()
	emptyRT.Spec.TieredStore.Levels[0].VolumeType = datav1alpha1.VolumeTypeEmptyDir
	c.Alternate = map[string]*enginetest.RenderCase{
		"spec.volumes":                           {Engine: juicefs.Engine{}, Dataset: volDS, Runtime: volRT},
		"spec.worker.volumeMounts":               {Engine: juicefs.Engine{}, Dataset: volDS, Runtime: volRT},
		"spec.fuse.volumeMounts":                 {Engine: juicefs.Engine{}, Dataset: volDS, Runtime: volRT},
		"spec.volumeClaimTemplates":              {Engine: juicefs.Engine{}, Dataset: claimDS, Runtime: claimRT},
		"spec.tieredstore.levels[].volumeSource": {Engine: juicefs.Engine{}, Dataset: emptyDS, Runtime: emptyRT},
	}
	return c
}

// TestValuesRefuseRefusedFields: a runtime admitted while the webhook was
// down still fails, InvalidSpec naming the field.
func TestValuesRefuseRefusedFields(t *testing.T) {
	ds, rt := sample()
	rt.Spec.RunAs = &datav1alpha1.User{UID: ptr.To[int64](1000)}
	_, err := juicefs.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "spec.runAs: JuiceFS workers and FUSE run as root")
}

var (
	juicefsResources = map[string]any{"requests": map[string]any{"cpu": "250m"}}
	juicefsSamples   = map[string]any{
		"spec.juicefsVersion":                    map[string]any{"image": "registry.example/juicefs", "imageTag": "ce-v9"},
		"spec.fuse.env":                          []any{map[string]any{"name": "SAMPLE", "value": "x"}},
		"spec.worker.env":                        []any{map[string]any{"name": "SAMPLE", "value": "x"}},
		"spec.fuse.resources":                    juicefsResources,
		"spec.worker.resources":                  juicefsResources,
		"spec.fuse.podMetadata":                  map[string]any{"labels": map[string]any{"tier": "gold"}},
		"spec.worker.podMetadata":                map[string]any{"labels": map[string]any{"tier": "gold"}},
		"spec.worker.ports":                      []any{map[string]any{"name": "sample", "containerPort": int64(7777)}},
		"spec.fuse.networkMode":                  "ContainerNetwork",
		"spec.worker.networkMode":                "HostNetwork",
		"spec.tieredstore.levels[].path":         "/mnt/jfs-other",
		"spec.tieredstore.levels[].quota":        "20Gi",
		"spec.tieredstore.levels[].low":          "0.2",
		"spec.tieredstore.levels[].volumeSource": map[string]any{"emptyDir": map[string]any{"medium": "Memory"}},
		"spec.configs":                           []any{"trash-days=2"},
		"spec.fuse.options":                      map[string]any{"entry-cache": "5"},
		"spec.worker.options":                    map[string]any{"entry-cache": "5"},
		"spec.fuse.imagePullPolicy":              "Always",
		"spec.podMetadata":                       map[string]any{"labels": map[string]any{"tier": "gold"}},
		"spec.volumes":                           []any{map[string]any{"name": "extra", "hostPath": map[string]any{"path": "/mnt/extra"}}},
		"spec.worker.volumeMounts":               []any{map[string]any{"name": "extra", "mountPath": "/sample"}},
		"spec.fuse.volumeMounts":                 []any{map[string]any{"name": "extra", "mountPath": "/sample"}},
		"spec.volumeClaimTemplates": []any{map[string]any{"metadata": map[string]any{"name": "scratch"},
			"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "2Gi"}}}}},
	}
)

// claimTemplate is a worker claim template "scratch" of the given size.
func claimTemplate(size string) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "scratch"}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}}}
}

// TestValuesRefuseDatasetFields: a Dataset field the engine cannot honour
// (a second mount, an owner) fails the runtime, naming the field.
func TestValuesRefuseDatasetFields(t *testing.T) {
	ds, rt := sample()
	ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "juicefs:///other", Name: "other"})
	ds.Spec.Owner = &datav1alpha1.User{UserName: "alice"}
	ds.Spec.DataRestoreLocation = &datav1alpha1.DataRestoreLocation{Path: "pvc://backups/imagenet"}
	_, err := juicefs.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "spec.mounts[1]: Sluice's JuiceFS engine mounts one JuiceFS volume", "spec.owner: Sluice's JuiceFS engine does not set the owner",
		"spec.dataRestoreLocation: Sluice's JuiceFS engine cannot restore a Dataset from a DataBackup")
}
