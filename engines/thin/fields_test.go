package thin_test

import (
	"maps"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/thin"
)

// TestFieldsClassifyTheSchema: every ThinRuntime and ThinRuntimeProfile
// spec field has a row in its table, and every row a field.
func TestFieldsClassifyTheSchema(t *testing.T) {
	enginetest.CheckClassified(t, enginetest.SpecSchema(t, enginetest.CRDFile("thinruntimes")), thin.Fields)
	enginetest.CheckClassified(t, enginetest.SpecSchema(t, enginetest.CRDFile("thinruntimeprofiles")), thin.ProfileFields)
}

// TestHonouredFieldsReachTheChart: setting any honoured runtime field
// changes the rendered release, apart from the few that act outside it.
func TestHonouredFieldsReachTheChart(t *testing.T) {
	c := renderCase()
	enginetest.CheckHonouredRendered(t, c, enginetest.SpecSchema(t, enginetest.CRDFile("thinruntimes")), thin.Fields, thinSamples,
		[]string{"spec.fuse.cleanPolicy", "spec.management.metadataSyncPolicy", "spec.profileName", "spec.management.cleanCachePolicy.gracePeriodSeconds", "spec.management.cleanCachePolicy.maxRetryAttempts"})
}

// TestTenantSafeFieldsStayOutOfHostContainers: no field the trust table
// calls tenant-safe changes what the engine's privileged or host-network
// containers run or mount (issue 30).
func TestTenantSafeFieldsStayOutOfHostContainers(t *testing.T) {
	// What changes a host container through the platform, and why.
	exempt := map[string]string{
		"spec.fuse.options":                    "mount options: one environment value (and the config file) of the FUSE program, which parses them as data",
		"spec.tieredstore.levels[].mediumtype": "MEM backs the cache directory with a memory emptyDir instead of the node's disk",
	}
	maps.Copy(exempt, enginetest.TierVolumeExempt)
	enginetest.CheckTenantSafeStaysOut(t, renderCase(), enginetest.SpecSchema(t, enginetest.CRDFile("thinruntimes")), "ThinRuntime", thin.Fields, thinSamples, exempt)
}

// renderCase is the render tests' baseline, with the alternates some
// fields need.
func renderCase() enginetest.RenderCase {
	ds, profile, rt := sample()
	c := enginetest.RenderCase{Engine: thin.Engine{}, Reader: fakeReader(profile), Dataset: ds, Runtime: rt}
	// Workers enabled by the profile only; their count from
	// spec.worker.replicas only when spec.replicas is 0.
	noWorkers, noReplicas, emptyDir := rt.DeepCopy(), rt.DeepCopy(), rt.DeepCopy()
	noWorkers.Spec.Worker.Enabled, noReplicas.Spec.Replicas = false, 0
	// A medium and a size limit (quota, quotaList, volumeSource.emptyDir)
	// shape emptyDir cache volumes; a hostPath has neither.
	emptyDir.Spec.TieredStore.Levels[1].VolumeType = datav1alpha1.VolumeTypeEmptyDir
	c.Alternate = map[string]*enginetest.RenderCase{
		"spec.tieredstore.levels[].mediumtype":   {Engine: thin.Engine{}, Reader: fakeReader(profile), Dataset: ds, Runtime: emptyDir},
		"spec.tieredstore.levels[].volumeSource": {Engine: thin.Engine{}, Reader: fakeReader(profile), Dataset: ds, Runtime: emptyDir},
		"spec.tieredstore.levels[].quota":        {Engine: thin.Engine{}, Reader: fakeReader(profile), Dataset: ds, Runtime: emptyDir},
		"spec.tieredstore.levels[].quotaList":    {Engine: thin.Engine{}, Reader: fakeReader(profile), Dataset: ds, Runtime: emptyDir},
		"spec.worker.enabled":                    {Engine: thin.Engine{}, Reader: fakeReader(profile), Dataset: ds, Runtime: noWorkers},
		"spec.worker.replicas":                   {Engine: thin.Engine{}, Reader: fakeReader(profile), Dataset: ds, Runtime: noReplicas},
	}
	return c
}

// TestHonouredProfileFieldsReachTheChart: the same for the profile's
// fields, under a runtime that sets nothing but the profile's name.
func TestHonouredProfileFieldsReachTheChart(t *testing.T) {
	ds, profile, _ := sample()
	rt := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"},
		Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: profile.Name}}
	c := enginetest.RenderCase{Engine: thin.Engine{}, Reader: fakeReader(profile), Dataset: ds, Runtime: rt,
		Set: func(path string, v any) (engines.Engine, client.Reader, client.Object, error) {
			p, err := enginetest.SetField(profile, path, v)
			if err != nil {
				return nil, nil, nil, err
			}
			return thin.Engine{}, fakeReader(p), rt, nil
		}}
	c.Alternate = map[string]*enginetest.RenderCase{}
	// Worker fields act when the profile enables workers.
	withWorkers := profile.DeepCopy()
	withWorkers.Spec.Worker.Enabled = true
	for _, f := range thin.ProfileFields {
		if strings.HasPrefix(f.Path, "spec.worker.") && f.Path != "spec.worker.enabled" {
			p := f.Path
			c.Alternate[p] = &enginetest.RenderCase{Engine: thin.Engine{}, Reader: fakeReader(withWorkers), Dataset: ds, Runtime: rt,
				Set: func(_ string, v any) (engines.Engine, client.Reader, client.Object, error) {
					changed, err := enginetest.SetField(withWorkers, p, v)
					return thin.Engine{}, fakeReader(changed), rt, err
				}}
		}
	}
	enginetest.CheckHonouredRendered(t, c, enginetest.SpecSchema(t, enginetest.CRDFile("thinruntimeprofiles")), thin.ProfileFields, thinSamples,
		[]string{"spec.fileSystemType", "spec.fuse.cleanPolicy"})
}

// TestValuesRefuseRefusedFields: a runtime admitted while the webhook was
// down still fails, InvalidSpec naming the field.
func TestValuesRefuseRefusedFields(t *testing.T) {
	ds, profile, rt := sample()
	uid := int64(1000)
	rt.Spec.RunAs = &datav1alpha1.User{UID: &uid, GID: &uid}
	_, err := enginetest.RenderErr(thin.Engine{}, fakeReader(profile), ds, rt)
	enginetest.WantInvalid(t, err, "spec.runAs: Sluice's Thin engine does not run the FUSE program as another user")
}

var (
	thinResources = map[string]any{"requests": map[string]any{"cpu": "250m"}}
	thinProbe     = map[string]any{"exec": map[string]any{"command": []any{"true"}}, "periodSeconds": int64(7)}
	thinEnv       = []any{map[string]any{"name": "SAMPLE", "value": "x"}}
	thinPorts     = []any{map[string]any{"name": "sample", "containerPort": int64(7777)}}
	thinMounts    = []any{map[string]any{"name": "scripts", "mountPath": "/sample"}}
	thinSecrets   = []any{map[string]any{"name": "registry-creds"}}
	thinSamples   = map[string]any{
		"spec.fileSystemType":                    "fuse.sample",
		"spec.imagePullSecrets":                  thinSecrets,
		"spec.fuse.imagePullSecrets":             thinSecrets,
		"spec.worker.imagePullSecrets":           thinSecrets,
		"spec.fuse.env":                          thinEnv,
		"spec.worker.env":                        thinEnv,
		"spec.fuse.ports":                        thinPorts,
		"spec.worker.ports":                      thinPorts,
		"spec.fuse.volumeMounts":                 thinMounts,
		"spec.worker.volumeMounts":               thinMounts,
		"spec.fuse.resources":                    thinResources,
		"spec.worker.resources":                  thinResources,
		"spec.fuse.livenessProbe":                thinProbe,
		"spec.fuse.readinessProbe":               thinProbe,
		"spec.worker.livenessProbe":              thinProbe,
		"spec.worker.readinessProbe":             thinProbe,
		"spec.fuse.lifecycle":                    map[string]any{"preStop": map[string]any{"exec": map[string]any{"command": []any{"sleep", "1"}}}},
		"spec.fuse.podMetadata":                  map[string]any{"labels": map[string]any{"tier": "gold"}},
		"spec.fuse.imagePullPolicy":              "Never",
		"spec.worker.imagePullPolicy":            "Never",
		"spec.fuse.networkMode":                  "ContainerNetwork",
		"spec.worker.networkMode":                "ContainerNetwork",
		"spec.tieredstore.levels[].mediumtype":   "MEM",
		"spec.tieredstore.levels[].path":         "/mnt/hdd1,/mnt/hdd2",
		"spec.tieredstore.levels[].quota":        "10Gi",
		"spec.tieredstore.levels[].quotaList":    "4Gi,6Gi",
		"spec.tieredstore.levels[].volumeSource": map[string]any{"emptyDir": map[string]any{"sizeLimit": "3Gi"}},
		"spec.volumes":                           []any{map[string]any{"name": "scripts", "emptyDir": map[string]any{}}},
	}
)
