package jindo_test

import (
	"maps"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/jindo"
)

// TestFieldsClassifyTheSchema: every JindoRuntime spec field has a row in
// jindo.Fields, and every row a field.
func TestFieldsClassifyTheSchema(t *testing.T) {
	enginetest.CheckClassified(t, enginetest.SpecSchema(t, enginetest.CRDFile("jindoruntimes")), jindo.Fields)
}

// TestHonouredFieldsReachTheChart: setting any honoured field changes the
// rendered release, apart from the few that act outside the chart.
func TestHonouredFieldsReachTheChart(t *testing.T) {
	c := renderCase()
	enginetest.CheckHonouredRendered(t, c, enginetest.SpecSchema(t, enginetest.CRDFile("jindoruntimes")), jindo.Fields, jindoSamples,
		[]string{"spec.fuse.cleanPolicy", "spec.cleanCachePolicy.gracePeriodSeconds", "spec.cleanCachePolicy.maxRetryAttempts"})
}

// TestTenantSafeFieldsStayOutOfHostContainers: no field the trust table
// calls tenant-safe changes what the engine's privileged or host-network
// containers run or mount (issue 30).
func TestTenantSafeFieldsStayOutOfHostContainers(t *testing.T) {
	// What changes a host container through the platform, and why.
	exempt := map[string]string{
		"spec.secret":          "mounts a Secret of the runtime's namespace read-only at /token: an STS token no program executes",
		"spec.user":            "RUN_AS_USER, as Fluid sets it: a user name the engine checks (spec.user's row)",
		"spec.master.disabled": "the FUSE runs alone: the engine sets FLUID_FUSE_MODE=fuseOnly instead of the masters' addresses",
		"spec.master.replicas": "the engine writes the masters' addresses, which it derives from the count, into the components' environment",
	}
	maps.Copy(exempt, enginetest.TierVolumeExempt)
	enginetest.CheckTenantSafeStaysOut(t, renderCase(), enginetest.SpecSchema(t, enginetest.CRDFile("jindoruntimes")), "JindoRuntime", jindo.Fields, jindoSamples, exempt)
}

// renderCase is the render tests' baseline, with the alternates some
// fields need.
func renderCase() enginetest.RenderCase {
	ds, rt := sample()
	c := enginetest.RenderCase{Engine: jindo.Engine{}, Dataset: ds, Runtime: rt}
	// spec.secret and the dataset's encryptOptions both supply /token.
	plainDS, plainRT := sample()
	plainDS.Spec.SharedEncryptOptions, plainDS.Spec.Mounts[0].EncryptOptions = nil, nil
	// spec.master.disabled runs FUSE alone: workers disabled, one mount.
	fuseDS, fuseRT := sample()
	fuseDS.Spec.Mounts = fuseDS.Spec.Mounts[:1]
	fuseRT.Spec.Worker.Disabled = true
	// volumeMounts name spec.volumes.
	volDS, volRT := sample()
	volRT.Spec.Volumes = []corev1.Volume{{Name: "sample", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	// MEM on a tier the workers' memory limit can hold; an emptyDir
	// medium on emptyDir directories.
	memDS, memRT := sample()
	memRT.Spec.TieredStore.Levels[0].QuotaList = "1Gi,1Gi"
	emptyDS, emptyRT := sample()
	emptyRT.Spec.TieredStore.Levels[0].VolumeType = datav1alpha1.VolumeTypeEmptyDir
	// quotaList, when set, overrides quota.
	quotaDS, quotaRT := sample()
	quotaRT.Spec.TieredStore.Levels[0].QuotaList = ""
	q := resource.MustParse("100Gi")
	quotaRT.Spec.TieredStore.Levels[0].Quota = &q
	c.Alternate = map[string]*enginetest.RenderCase{
		"spec.tieredstore.levels[].quota":        {Engine: jindo.Engine{}, Dataset: quotaDS, Runtime: quotaRT},
		"spec.tieredstore.levels[].mediumtype":   {Engine: jindo.Engine{}, Dataset: memDS, Runtime: memRT},
		"spec.tieredstore.levels[].volumeSource": {Engine: jindo.Engine{}, Dataset: emptyDS, Runtime: emptyRT},
		"spec.secret":                            {Engine: jindo.Engine{}, Dataset: plainDS, Runtime: plainRT},
		"spec.master.disabled":                   {Engine: jindo.Engine{}, Dataset: fuseDS, Runtime: fuseRT},
		"spec.master.volumeMounts":               {Engine: jindo.Engine{}, Dataset: volDS, Runtime: volRT},
		"spec.worker.volumeMounts":               {Engine: jindo.Engine{}, Dataset: volDS, Runtime: volRT},
	}
	return c
}

var jindoSamples = map[string]any{
	"spec.jindoVersion":                      map[string]any{"image": "registry.example/smartdata", "imageTag": "6.9.9"},
	"spec.fuse.imagePullPolicy":              "Always",
	"spec.fuse.resources":                    jindoResources,
	"spec.master.resources":                  jindoResources,
	"spec.worker.resources":                  map[string]any{"limits": map[string]any{"memory": "9Gi"}},
	"spec.podMetadata":                       jindoPodMetadata,
	"spec.fuse.podMetadata":                  jindoPodMetadata,
	"spec.master.podMetadata":                jindoPodMetadata,
	"spec.worker.podMetadata":                jindoPodMetadata,
	"spec.imagePullSecrets":                  jindoPullSecrets,
	"spec.fuse.imagePullSecrets":             jindoPullSecrets,
	"spec.master.imagePullSecrets":           jindoPullSecrets,
	"spec.worker.imagePullSecrets":           jindoPullSecrets,
	"spec.fuse.tolerations":                  jindoTolerations,
	"spec.master.tolerations":                jindoTolerations,
	"spec.worker.tolerations":                jindoTolerations,
	"spec.master.ports":                      map[string]any{"rpc": int64(18101)},
	"spec.worker.ports":                      map[string]any{"rpc": int64(16101)},
	"spec.master.replicas":                   int64(1),
	"spec.networkmode":                       "ContainerNetwork",
	"spec.runAs":                             map[string]any{"uid": int64(1000), "gid": int64(1000), "user": "alice", "group": "staff"},
	"spec.tieredstore.levels[].mediumtype":   "MEM",
	"spec.tieredstore.levels[].path":         "/mnt/disk3,/mnt/disk4",
	"spec.tieredstore.levels[].quota":        "80Gi",
	"spec.tieredstore.levels[].quotaList":    "60Gi,40Gi",
	"spec.tieredstore.levels[].volumeSource": map[string]any{"emptyDir": map[string]any{"medium": "Memory"}},
	"spec.volumes":                           []any{map[string]any{"name": "extra", "emptyDir": map[string]any{}}},
	"spec.master.volumeMounts":               jindoMounts,
	"spec.worker.volumeMounts":               jindoMounts,
}

var (
	jindoResources   = map[string]any{"requests": map[string]any{"cpu": "250m"}}
	jindoPodMetadata = map[string]any{"labels": map[string]any{"tier": "gold"}, "annotations": map[string]any{"example.com/note": "x"}}
	jindoPullSecrets = []any{map[string]any{"name": "registry-creds"}}
	jindoTolerations = []any{map[string]any{"key": "dedicated", "operator": "Exists"}}
	jindoMounts      = []any{map[string]any{"name": "sample", "mountPath": "/sample"}}
)

// TestValuesRefuseRefusedFields: a runtime admitted while the webhook was
// down still fails, InvalidSpec naming the field.
func TestValuesRefuseRefusedFields(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Fuse.Metrics = datav1alpha1.JindoFuseMetrics{Enabled: true}
	rt.Spec.Properties = map[string]string{"fs.oss.accessKeySecret": "plain"}
	_, err := jindo.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "spec.fuse.metrics: Sluice's Jindo engine does not configure FUSE metrics",
		"spec.properties: credentials must come from a Secret (spec.secret or the dataset's encryptOptions), not plain properties: fs.oss.accessKeySecret")
}

// TestAUserNameIsTheOnlyUser: spec.user reaches the privileged FUSE's
// environment (RUN_AS_USER), which the image's entrypoint reads as root:
// anything but a user name is refused, naming the field.
func TestAUserNameIsTheOnlyUser(t *testing.T) {
	for _, user := range []string{"root; id", "$(id)", "a b", "Alice", "x\n---"} {
		ds, rt := sample()
		rt.Spec.User = user
		_, err := jindo.Engine{}.Values(ds, rt)
		enginetest.WantInvalid(t, err, "spec.user: "+strconv.Quote(user)+" is not a user name")
	}
	ds, rt := sample()
	rt.Spec.User = "hadoop_1"
	if _, err := (jindo.Engine{}).Values(ds, rt); err != nil {
		t.Errorf("a user name: %v", err)
	}
}
