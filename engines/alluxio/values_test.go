package alluxio_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

func TestValuesRejectWhatCannotRun(t *testing.T) {
	zero, neg := resource.MustParse("0"), resource.MustParse("-1Gi")
	tests := []struct {
		name   string
		change func(*datav1alpha1.Dataset, *datav1alpha1.AlluxioRuntime)
		// field is what the message must name.
		field string
	}{
		{"no mounts", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) { ds.Spec.Mounts = nil }, "spec.mounts"},
		{"no tiers", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) { rt.Spec.TieredStore.Levels = nil }, "spec.tieredstore.levels"},
		{"level without quota or quotaList", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].Quota = nil
		}, "spec.tieredstore.levels[1]: quota or quotaList"},
		{"quotaList shorter than path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].QuotaList = "10Gi"
		}, "spec.tieredstore.levels[1].quotaList: 1 sizes for 2 paths"},
		{"quotaList longer than path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[0].QuotaList = "1Gi,1Gi"
		}, "spec.tieredstore.levels[0].quotaList: 2 sizes for 1 paths"},
		{"zero quota", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[0].Quota = &zero
		}, "spec.tieredstore.levels[0].quota"},
		{"negative quota", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[0].Quota = &neg
		}, "spec.tieredstore.levels[0].quota"},
		{"zero size in quotaList", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].QuotaList = "10Gi,0"
		}, "spec.tieredstore.levels[1].quotaList[1]"},
		{"unknown mediumtype", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].MediumType = "NVME"
		}, "spec.tieredstore.levels[1].mediumtype"},
		{"two tiers of one medium", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].MediumType = datav1alpha1.Memory
		}, "spec.tieredstore.levels[1].mediumtype"},
		{"tiers slowest first", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			l := rt.Spec.TieredStore.Levels
			l[0], l[1] = l[1], l[0]
		}, "spec.tieredstore.levels[1].mediumtype"},
		{"tier without path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[0].Path = ""
		}, "spec.tieredstore.levels[0].path"},
		{"relative tier path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].Path = "/mnt/ssd0,cache"
		}, "spec.tieredstore.levels[1].path"},
		{"directory in two tiers", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].Path = "/mnt/ssd0,/dev/shm/"
		}, "spec.tieredstore.levels[1].path"},
		{"low above high", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].Low = "0.99"
		}, "spec.tieredstore.levels[1]: low"},
		{"watermark out of range", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].High = "1.5"
		}, "spec.tieredstore.levels[1].high"},
		{"even master count", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) { rt.Spec.Master.Replicas = 2 }, "spec.master.replicas"},
		{"unknown port", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.Worker.Ports = map[string]int{"grpc": 30001}
		}, "spec.worker.ports"},
		{"port out of range", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.Master.Ports = map[string]int{"web": 70000}
		}, "spec.master.ports.web"},
		{"property name with a space", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.Fuse.Properties = map[string]string{"alluxio.user bad": "x"}
		}, "spec.fuse.properties"},
		{"mount without name or path", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) {
			ds.Spec.Mounts[1].Name, ds.Spec.Mounts[1].Path = "", ""
		}, "spec.mounts[1]"},
		{"two mounts at one path", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) { ds.Spec.Mounts[1].Path = "/train" }, "spec.mounts[1]"},
		{"root mount beside others", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) { ds.Spec.Mounts[0].Path = "/" }, "spec.mounts[0].path"},
		{"mount point without scheme", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) { ds.Spec.Mounts[0].MountPoint = "/data" }, "spec.mounts[0].mountPoint"},
		{"dataset:// mount", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) {
			ds.Spec.Mounts[0].MountPoint = "dataset://team-b/raw"
		}, "spec.mounts[0].mountPoint"},
		{"pvc:// without claim", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) {
			ds.Spec.Mounts[0].MountPoint = "pvc:///sub"
		}, "spec.mounts[0].mountPoint"},
		{"encrypt option without key", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) {
			ds.Spec.Mounts[1].EncryptOptions = []datav1alpha1.EncryptOption{{Name: "aws.secretKey", ValueFrom: datav1alpha1.EncryptOptionSource{
				SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "other"}}}}
		}, "spec.mounts[1].encryptOptions[0].valueFrom.secretKeyRef"},
		{"bad shared encrypt option name", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) {
			ds.Spec.SharedEncryptOptions[0].Name = "aws key"
		}, "spec.sharedEncryptOptions[0].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, rt := sample()
			tt.change(ds, rt)
			_, err := alluxio.Engine{}.Values(ds, rt)
			enginetest.WantInvalid(t, err, tt.field)
		})
	}
	ds, _ := sample()
	if _, err := (alluxio.Engine{}).Values(ds, &datav1alpha1.JuiceFSRuntime{}); err == nil {
		t.Error("another runtime kind must be rejected")
	}
}

func TestValuesDefaultsAndSizes(t *testing.T) {
	ds, rt := sample()
	rt.Spec.TieredStore.Levels[1].Quota = nil
	rt.Spec.TieredStore.Levels[1].QuotaList = "1536Mi,1000"
	o := decode(t, render(t, ds, rt))
	if q := properties(t, o.config, "worker.properties")["alluxio.worker.tieredstore.level1.dirs.quota"]; q != "1536MB,1000" {
		t.Errorf("quotaList as Alluxio sizes = %q, want 1536MB,1000", q)
	}
	if img := o.master.Spec.Template.Spec.Containers[0].Image; img != alluxio.DefaultImage+":"+alluxio.DefaultImageTag {
		t.Errorf("default image %s", img)
	}
	rt.Spec.AlluxioVersion = datav1alpha1.VersionSpec{Image: "registry.local/alluxio", ImageTag: "2.9.3"}
	rt.Spec.Fuse.ImageTag = "2.9.3-fuse"
	o = decode(t, render(t, ds, rt))
	if w, f := o.worker.Spec.Template.Spec.Containers[0].Image, o.fuse.Spec.Template.Spec.Containers[0].Image; w != "registry.local/alluxio:2.9.3" ||
		f != "registry.local/alluxio:2.9.3-fuse" {
		t.Errorf("images: worker %s, fuse %s", w, f)
	}
}

func TestEngineDescribesAlluxio(t *testing.T) {
	e := alluxio.Engine{}
	if e.Type() != "alluxio" || alluxio.MountType != "fuse.alluxio-fuse" {
		t.Errorf("type %q, mount type %q", e.Type(), alluxio.MountType)
	}
	if _, ok := e.NewObject().(*datav1alpha1.AlluxioRuntime); !ok {
		t.Errorf("the engine serves %T, want AlluxioRuntimes", e.NewObject())
	}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d"}}
	if v := e.Volume(rt); v != (engines.FuseVolume{Path: "/runtime-mnt/alluxio/ns/d/alluxio-fuse", MountType: "fuse.alluxio-fuse", CleanPolicy: datav1alpha1.OnRuntimeDeletedCleanPolicy}) {
		t.Errorf("Volume = %+v", v)
	}
	rt.Spec.Fuse.CleanPolicy = datav1alpha1.OnDemandCleanPolicy
	if v := e.Volume(rt); v.CleanPolicy != datav1alpha1.OnDemandCleanPolicy {
		t.Errorf("Volume's cleanPolicy = %q, want the runtime's", v.CleanPolicy)
	}
	if c := e.Components(&datav1alpha1.AlluxioRuntime{}); !c.Master || !c.Worker {
		t.Errorf("components %+v, want master and worker", c)
	}
	if p := alluxio.FusePath("ns", "d"); p != "/runtime-mnt/alluxio/ns/d/alluxio-fuse" {
		t.Errorf("FusePath = %s", p)
	}
}

// TestSoleUnnamedMountIsTheRoot: a Fluid Dataset with one mount and neither
// name nor path makes that mount Alluxio's root storage.
func TestSoleUnnamedMountIsTheRoot(t *testing.T) {
	ds, rt := sample()
	ds.Spec.Mounts = []datav1alpha1.Mount{{MountPoint: "s3://bucket/coco"}}
	o := decode(t, render(t, ds, rt))
	if u := properties(t, o.config, "master.properties")["alluxio.master.mount.table.root.ufs"]; u != "s3://bucket/coco" {
		t.Errorf("root ufs = %q, want the sole mount", u)
	}
	ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "s3://bucket/other", Name: "other"})
	if _, err := (alluxio.Engine{}).Values(ds, rt); err == nil || !strings.Contains(err.Error(), "spec.mounts[0]") {
		t.Errorf("an unnamed mount beside another must be rejected naming it, got %v", err)
	}
}
