package juicefs_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// TestValuesRefuseWhatTheyCannotHonour: a field the engine cannot honour
// is refused with InvalidSpec naming it, never accepted and ignored.
func TestValuesRefuseWhatTheyCannotHonour(t *testing.T) {
	for _, tc := range []struct {
		name   string
		set    func(*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime)
		naming []string
	}{
		{"a second mount", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "juicefs:///other"})
		}, []string{"spec.mounts[1]", "mounts one JuiceFS volume"}},
		{"another scheme", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].MountPoint = "s3://bucket/x"
		}, []string{"spec.mounts[0].mountPoint"}},
		{"a relative sub-directory", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].MountPoint = "juicefs://data"
		}, []string{"spec.mounts[0].mountPoint", "juicefs:///data"}},
		{"a mount path", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].Path = "/data"
		}, []string{"spec.mounts[0].path", "/data"}},
		{"a volume name JuiceFS refuses", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].Name = "Data_Set"
		}, []string{"spec.mounts[0].name", "Data_Set"}},
		{"metaurl and token", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.SharedEncryptOptions = []datav1alpha1.EncryptOption{secretOption("token")}
		}, []string{"metaurl", "token"}},
		{"neither metaurl nor token", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].EncryptOptions = []datav1alpha1.EncryptOption{secretOption("access-key")}
		}, []string{"spec.mounts[0].encryptOptions", "neither metaurl", "nor token"}},
		{"no encrypt options", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].EncryptOptions = nil
		}, []string{"spec.mounts[0].encryptOptions", "neither metaurl", "nor token"}},
		{"an encrypt option JuiceFS does not read", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].EncryptOptions = append(ds.Spec.Mounts[0].EncryptOptions, secretOption("password"))
		}, []string{"spec.mounts[0].encryptOptions[1].name", "password"}},
		{"an enterprise encrypt option JuiceFS does not read", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].EncryptOptions = []datav1alpha1.EncryptOption{secretOption("token"), secretOption("session-token")}
		}, []string{"spec.mounts[0].encryptOptions[1].name", "session-token"}},
		{"a plain credential", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.SharedOptions = map[string]string{"access-key": "AKIA"}
		}, []string{`dataset spec.sharedOptions["access-key"]`, "encryptOptions"}},
		{"an unknown dataset option", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].Options["cachesize"] = "1"
		}, []string{`dataset spec.mounts[0].options["cachesize"]`}},
		{"a quota on the root", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].MountPoint, ds.Spec.Mounts[0].Options["quota"] = "juicefs:///", "10Gi"
		}, []string{`options["quota"]`, "sub-directory"}},
		{"a tier path with ..", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.TieredStore.Levels[0].Path = "/mnt/cache/../../etc"
		}, []string{"spec.tieredstore.levels[0].path", `".." segment`}},
		{"a tier path inside Sluice's runtime directories", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.TieredStore.Levels[0].Path = "/mnt/cache/.sluice/team-b/other"
		}, []string{"spec.tieredstore.levels[0].path", ".sluice segment"}},
		{"a relative cache directory in the options", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Fuse.Options = map[string]string{"cache-dir": "/mnt/fuse:cache"}
		}, []string{`spec.fuse.options["cache-dir"]`, `"cache" is not an absolute path`}},
		{"an unknown worker option", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Worker.Options = map[string]string{"cache-szie": "1"}
		}, []string{`spec.worker.options["cache-szie"]`}},
		{"an unknown config", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Configs = &[]string{"cache-size=1"}
		}, []string{"spec.configs[0]", "cache-size"}},
		{"a second tier", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.TieredStore.Levels = append(rt.Spec.TieredStore.Levels, rt.Spec.TieredStore.Levels[0])
		}, []string{"spec.tieredstore.levels[1]"}},
		{"a quota list", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.TieredStore.Levels[0].QuotaList = "20Gi,20Gi"
		}, []string{"spec.tieredstore.levels[0].quotaList"}},
		{"master", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Master.Replicas = 1
		}, []string{"spec.master"}},
		{"jobWorker", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.JobWorker.Options = map[string]string{"a": "b"}
		}, []string{"spec.jobWorker"}},
		{"runAs", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.RunAs = &datav1alpha1.User{UserName: "jfs"}
		}, []string{"spec.runAs"}},
		{"initUsers", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.InitUsers.Image = "init"
		}, []string{"spec.initUsers"}},
		{"worker ports", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Worker.Ports = []corev1.ContainerPort{{Name: "x", ContainerPort: 1}}
		}, []string{"spec.worker.ports"}},
		{"worker replicas", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Worker.Replicas = 3
		}, []string{"spec.worker.replicas", "spec.replicas"}},
		{"a label the chart sets", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.PodMetadata.Labels = map[string]string{"role": "x"}
		}, []string{"spec.podMetadata.labels", `"role"`}},
		{"a volume named like the chart's", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Volumes = []corev1.Volume{{Name: "cache-0"}}
		}, []string{"spec.volumes[0].name", "cache-0"}},
		{"a mount of no volume", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "nowhere", MountPath: "/x"}}
		}, []string{"spec.fuse.volumeMounts[0]", "nowhere"}},
		{"a claim template FUSE mounts", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "c"}}}
			rt.Spec.Worker.VolumeMounts = []corev1.VolumeMount{{Name: "c", MountPath: "/c"}}
			rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "c", MountPath: "/c"}}
		}, []string{"spec.fuse.volumeMounts[0]", `"c"`}},
		{"a claim template no worker mounts", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "c"}}}
		}, []string{"spec.volumeClaimTemplates[0]"}},
		{"an enterprise option with a comma", func(ds *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].EncryptOptions = []datav1alpha1.EncryptOption{secretOption("token")}
			rt.Spec.Fuse.Options = map[string]string{"cache-group": "a,allow_root"}
		}, []string{`spec.fuse.options["cache-group"]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, rt := sample()
			tc.set(ds, rt)
			_, err := juicefs.Engine{}.Values(ds, rt)
			enginetest.WantInvalid(t, err, tc.naming...)
		})
	}
}

// TestDisablePrometheus: no metrics port, no metrics address, and no
// scrape.
func TestDisablePrometheus(t *testing.T) {
	_, rt := sample()
	if _, ok := (juicefs.Engine{}).CacheMetrics(rt); !ok {
		t.Fatal("metrics are read by default")
	}
	rt.Spec.DisablePrometheus = true
	if _, ok := (juicefs.Engine{}).CacheMetrics(rt); ok {
		t.Error("a runtime with disablePrometheus is scraped")
	}
}

// TestDatasetWithoutCredentialsIsRefusedAtAdmission: the Dataset field
// table, which the webhook checks (rule engine-field), refuses a JuiceFS
// Dataset naming neither metaurl nor token, with the message that names
// the missing option; one naming either (in the mount's or the shared
// encrypt options) passes.
func TestDatasetWithoutCredentialsIsRefusedAtAdmission(t *testing.T) {
	ds, _ := sample()
	if found := juicefs.DatasetFields.Check(ds); len(found) != 0 {
		t.Errorf("the sample (metaurl) is refused: %v", found)
	}
	ds.Spec.Mounts[0].EncryptOptions = nil
	ds.Spec.SharedEncryptOptions = []datav1alpha1.EncryptOption{secretOption("token")}
	if found := juicefs.DatasetFields.Check(ds); len(found) != 0 {
		t.Errorf("a shared token is refused: %v", found)
	}
	ds.Spec.SharedEncryptOptions = nil
	found := juicefs.DatasetFields.Check(ds)
	if len(found) != 1 || found[0].Support != engines.Refused || found[0].Path != "spec" ||
		!strings.Contains(found[0].Message, "neither metaurl") || !strings.Contains(found[0].Message, "spec.mounts[0].encryptOptions") {
		t.Errorf("findings %v, want spec refused naming metaurl, token and where they go", found)
	}
}
