package jindo_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/jindo"
)

func quantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

// TestValuesRejectWhatCannotRun: each spec that cannot run is an
// engines.Error with reason InvalidSpec whose message names the field.
func TestValuesRejectWhatCannotRun(t *testing.T) {
	level := func(rt *datav1alpha1.JindoRuntime) *datav1alpha1.Level { return &rt.Spec.TieredStore.Levels[0] }
	for _, tc := range []struct {
		name   string
		change func(*datav1alpha1.Dataset, *datav1alpha1.JindoRuntime)
		field  string
	}{
		{"no mounts", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) { ds.Spec.Mounts = nil }, "spec.mounts is empty"},
		{"no levels", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { rt.Spec.TieredStore.Levels = nil }, "spec.tieredstore.levels is empty"},
		{"two levels", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.TieredStore.Levels = append(rt.Spec.TieredStore.Levels, datav1alpha1.Level{MediumType: datav1alpha1.HDD, Path: "/hdd", Quota: quantity("1Ti")})
		}, "spec.tieredstore.levels[1]"},
		{"level without quota", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { level(rt).QuotaList = "" }, "neither quota nor quotaList"},
		{"quotaList shorter than path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { level(rt).QuotaList = "100Gi" }, "quotaList has 1 entries for 2 paths"},
		{"quotaList longer than path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { level(rt).QuotaList = "1Gi,1Gi,1Gi" }, "quotaList has 3 entries"},
		{"zero quotaList entry", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { level(rt).QuotaList = "100Gi,0" }, "quotaList entry 1"},
		{"negative quotaList entry", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { level(rt).QuotaList = "-1Gi,1Gi" }, "quotaList entry 0"},
		{"malformed quotaList", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { level(rt).QuotaList = "1Gi,lots" }, "not a quantity"},
		{"zero quota", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			level(rt).QuotaList, level(rt).Quota = "", quantity("0")
		}, "spec.tieredstore.levels[0].quota 0"},
		{"negative quota", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			level(rt).QuotaList, level(rt).Quota = "", quantity("-10Gi")
		}, "spec.tieredstore.levels[0].quota -10Gi"},
		{"quota too small to split", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			level(rt).QuotaList, level(rt).Quota = "", quantity("1Mi")
		}, "less than 1Mi per directory"},
		{"relative tier path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { level(rt).Path = "/mnt/disk1,disk2" }, `"disk2" is not an absolute`},
		{"empty tier path entry", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { level(rt).Path = "/mnt/disk1,," }, "spec.tieredstore.levels[0].path"},
		{"duplicate tier path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			level(rt).Path = "/mnt/disk1,/mnt/disk1/"
		}, "listed twice"},
		{"MEM tier over the worker memory limit", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			level(rt).MediumType = datav1alpha1.Memory
		}, "spec.worker.resources.limits.memory 8Gi is below the MEM tier's quota 150Gi"},
		{"two masters", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { rt.Spec.Master.Replicas = 2 }, "spec.master.replicas is 2"},
		{"workers without master", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { rt.Spec.Master.Disabled = true }, "spec.master.disabled"},
		{"everything disabled", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Master.Disabled, rt.Spec.Worker.Disabled, rt.Spec.Fuse.Disabled = true, true, true
		}, "all disabled"},
		{"FUSE alone with two mounts", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Master.Disabled, rt.Spec.Worker.Disabled = true, true
		}, "has 2"},
		{"oss without endpoint", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			delete(ds.Spec.Mounts[0].Options, "fs.oss.endpoint")
		}, "spec.mounts[0].options[fs.oss.endpoint] is required"},
		{"oss without bucket", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[0].MountPoint = "oss:///train"
		}, "needs a bucket"},
		{"unsupported scheme", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[1].MountPoint = "https://example.com/labels"
		}, "spec.mounts[1].mountPoint"},
		{"relative local path", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[1].MountPoint = "local://labels"
		}, "absolute host path"},
		{"pvc without claim", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[1].MountPoint = "pvc:///sub"
		}, "needs a claim name"},
		{"access key in plain options", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.SharedOptions = map[string]string{"fs.oss.accessKeySecret": "plain"}
		}, "options[fs.oss.accessKeySecret]: credentials must come from encryptOptions"},
		{"unknown option", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[0].Options["cache-size"] = "1"
		}, "spec.mounts[0].options[cache-size]"},
		{"bad write policy", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[0].Options["writePolicy"] = "WRITE_BACK"
		}, "options[writePolicy]"},
		{"CACHE_ONLY without metaPolicy ONCE", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[1].Options = map[string]string{"writePolicy": "CACHE_ONLY"}
		}, "spec.mounts[1].options: writePolicy CACHE_ONLY"},
		{"conflicting fs options", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[0].Options["fs.jindocache.block.size"] = "4m"
			ds.Spec.Mounts[1].Options = map[string]string{"fs.jindocache.block.size": "8m"}
		}, "spec.mounts[1].options[fs.jindocache.block.size]"},
		{"mount path other than /<name>", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) { ds.Spec.Mounts[0].Path = "/" }, "spec.mounts[0].path"},
		{"duplicate mount names", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) { ds.Spec.Mounts[1].Name = "train" }, "spec.mounts[1].name"},
		{"unknown encrypt option", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[0].EncryptOptions[0].Name = "fs.oss.password"
		}, "spec.mounts[0].encryptOptions[0].name"},
		{"encrypt option for an unused scheme", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.SharedEncryptOptions[0].Name = "fs.s3.accessKeyId"
		}, "no mount of the dataset uses s3://"},
		{"access key without its secret half", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[0].EncryptOptions = nil
		}, "fs.oss.accessKeySecret is missing"},
		{"encrypt option without key", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.SharedEncryptOptions[0].ValueFrom.SecretKeyRef.Key = ""
		}, "spec.sharedEncryptOptions[0].valueFrom.secretKeyRef needs both name and key"},
		{"two sources for one half", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[0].EncryptOptions = append(ds.Spec.Mounts[0].EncryptOptions,
				datav1alpha1.EncryptOption{Name: "fs.oss.accessKeyId", ValueFrom: secretRef("other", "id")})
		}, "name different Secret keys"},
		{"spec.secret and encryptOptions", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { rt.Spec.Secret = "sts" }, `spec.secret "sts"`},
		{"credential in runtime properties", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Properties = map[string]string{"jindocache.oss.accessKeySecret": "plain"}
		}, "spec.properties: credentials must come from a Secret (spec.secret or the dataset's encryptOptions), not plain properties: jindocache.oss.accessKeySecret"},
		{"multi-line property", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Worker.Properties = map[string]string{"storage.x": "1\n[jindocache-server]"}
		}, "spec.worker.properties[storage.x]"},
		{"property name with a bracket", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Fuse.Properties = map[string]string{"[common]": "x"}
		}, "spec.fuse.properties: property name"},
		{"reserved label", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Worker.PodMetadata.Labels = map[string]string{"role": "cache"}
		}, `spec.worker labels`},
		{"deprecated reserved label", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Labels = map[string]string{"app.kubernetes.io/instance": "x"}
		}, `"app.kubernetes.io/instance"`},
		{"volume mount without volume", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Master.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/extra"}}
		}, "spec.master.volumeMounts[0]"},
		{"volume named like the engine's", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Volumes = []corev1.Volume{{Name: "cache-0"}}
		}, "spec.volumes[0].name"},
		{"unknown port", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Worker.Ports = map[string]int{"web": 8080}
		}, "spec.worker.ports[web]"},
		{"port out of range", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Master.Ports = map[string]int{"rpc": 70000}
		}, "spec.master.ports[rpc] is 70000"},
		{"bad env name", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Fuse.Env = map[string]string{"A=B": "x"}
		}, "spec.fuse.env"},
		{"hadoop config", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { rt.Spec.HadoopConfig = "hdfs-conf" }, "spec.hadoopConfig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, rt := sample()
			tc.change(ds, rt)
			_, err := jindo.Engine{}.Values(ds, rt)
			enginetest.WantInvalid(t, err, tc.field)
		})
	}
	if _, err := (jindo.Engine{}).Values(&datav1alpha1.Dataset{}, &datav1alpha1.AlluxioRuntime{}); err == nil || !strings.Contains(err.Error(), "JindoRuntimes") {
		t.Errorf("another runtime kind: error %v", err)
	}
}

// TestValuesAcceptVariants checks specs that are valid though unusual.
func TestValuesAcceptVariants(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*datav1alpha1.Dataset, *datav1alpha1.JindoRuntime)
	}{
		{"quota split over paths", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.TieredStore.Levels[0].QuotaList, rt.Spec.TieredStore.Levels[0].Quota = "", quantity("10Gi")
		}},
		{"quotaList with trailing comma", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.TieredStore.Levels[0].QuotaList = "100Gi,50Gi,"
		}},
		{"workers disabled", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Worker.Disabled, rt.Spec.TieredStore.Levels = true, nil
		}},
		{"pvc mount", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[1].MountPoint = "pvc://labels-claim/v2"
		}},
		{"mount path equal to its name", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) { ds.Spec.Mounts[0].Path = "/train/" }},
		{"user volume mounted by the master", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Volumes = []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			rt.Spec.Master.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/extra"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, rt := sample()
			tc.change(ds, rt)
			renderRelease(t, ds, rt)
		})
	}
}
