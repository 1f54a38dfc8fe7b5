package juicefs_test

import (
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// TestFieldsClassifyTheSchema: every JuiceFSRuntime spec field has a row in
// juicefs.Fields, and every row a field.
func TestFieldsClassifyTheSchema(t *testing.T) {
	enginetest.CheckClassified(t, enginetest.SpecSchema(t, enginetest.CRDFile("juicefsruntimes")), juicefs.Fields)
}

// TestHonouredFieldsReachTheChart: setting any honoured field changes the
// rendered release, apart from the few that act outside the chart.
func TestHonouredFieldsReachTheChart(t *testing.T) {
	ds, rt := sample()
	c := enginetest.RenderCase{Engine: juicefs.Engine{}, Dataset: ds, Runtime: rt}
	enginetest.CheckHonouredRendered(t, c, enginetest.SpecSchema(t, enginetest.CRDFile("juicefsruntimes")), juicefs.Fields, juicefsSamples,
		[]string{"spec.fuse.cleanPolicy", "spec.management.cleanCachePolicy", "spec.tieredstore.levels[].mediumtype"})
}

// TestValuesRefuseRefusedFields: a runtime admitted while the webhook was
// down still fails, InvalidSpec naming the field.
func TestValuesRefuseRefusedFields(t *testing.T) {
	ds, rt := sample()
	rt.Spec.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"team": "a"}}
	_, err := juicefs.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "spec.podMetadata: Sluice's JuiceFS engine does not apply runtime-level pod metadata")
}

var (
	juicefsResources = map[string]any{"requests": map[string]any{"cpu": "250m"}}
	juicefsSamples   = map[string]any{
		"spec.juicefsVersion":             map[string]any{"image": "registry.example/juicefs", "imageTag": "ce-v9"},
		"spec.fuse.env":                   []any{map[string]any{"name": "SAMPLE", "value": "x"}},
		"spec.worker.env":                 []any{map[string]any{"name": "SAMPLE", "value": "x"}},
		"spec.fuse.resources":             juicefsResources,
		"spec.worker.resources":           juicefsResources,
		"spec.fuse.podMetadata":           map[string]any{"labels": map[string]any{"tier": "gold"}},
		"spec.worker.podMetadata":         map[string]any{"labels": map[string]any{"tier": "gold"}},
		"spec.worker.ports":               []any{map[string]any{"name": "sample", "containerPort": int64(7777)}},
		"spec.fuse.networkMode":           "ContainerNetwork",
		"spec.worker.networkMode":         "HostNetwork",
		"spec.tieredstore.levels[].path":  "/mnt/jfs-other",
		"spec.tieredstore.levels[].quota": "20Gi",
	}
)

// TestValuesRefuseDatasetFields: a Dataset field the engine cannot honour
// (a second mount, an owner) fails the runtime, naming the field.
func TestValuesRefuseDatasetFields(t *testing.T) {
	ds, rt := sample()
	ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "juicefs:///other", Name: "other"})
	ds.Spec.Owner = &datav1alpha1.User{UserName: "alice"}
	_, err := juicefs.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "spec.mounts[1]: Sluice's JuiceFS engine mounts one JuiceFS volume", "spec.owner: Sluice's JuiceFS engine does not set the owner")
}
