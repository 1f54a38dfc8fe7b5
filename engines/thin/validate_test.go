package thin_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/thin"
)

// TestValuesRejectWhatCannotRun: each spec that cannot run is an InvalidSpec
// error whose message names the field.
func TestValuesRejectWhatCannotRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*datav1alpha1.Dataset, *datav1alpha1.ThinRuntimeProfile, *datav1alpha1.ThinRuntime)
		field string
	}{
		{"no mounts", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			ds.Spec.Mounts = nil
		}, "spec.mounts is empty"},
		{"no FUSE image anywhere", func(_ *datav1alpha1.Dataset, p *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			p.Spec.Fuse.Image = ""
		}, "spec.fuse.image"},
		{"unknown pull policy", func(_ *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Fuse.ImagePullPolicy = "Sometimes"
		}, "spec.fuse.imagePullPolicy"},
		{"workers enabled without an image", func(_ *datav1alpha1.Dataset, p *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			p.Spec.Worker.Image = ""
		}, "spec.worker.image"},
		{"no file-system type", func(_ *datav1alpha1.Dataset, p *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			p.Spec.FileSystemType = ""
		}, "spec.fileSystemType"},
		{"duplicate mount names", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			ds.Spec.Mounts[1].Name = "train"
		}, "spec.mounts[1].name"},
		{"duplicate mount paths", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			ds.Spec.Mounts[1].Path = "/train/"
		}, "spec.mounts[1]: path \"/train\""},
		{"two unnamed mounts share /", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			ds.Spec.Mounts[0].Name, ds.Spec.Mounts[1].Name, ds.Spec.Mounts[1].Path = "", "", ""
		}, "spec.mounts[1]: path \"/\""},
		{"blank mount point", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			ds.Spec.Mounts[0].MountPoint = "  "
		}, "spec.mounts[0].mountPoint"},
		{"encrypt option without a key", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			ds.Spec.Mounts[0].EncryptOptions[0].ValueFrom.SecretKeyRef.Key = ""
		}, "spec.mounts[0].encryptOptions[0] (password): valueFrom.secretKeyRef.key"},
		{"shared encrypt option without a Secret", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			ds.Spec.SharedEncryptOptions[0].ValueFrom.SecretKeyRef.Name = ""
		}, "spec.sharedEncryptOptions[0] (token): valueFrom.secretKeyRef.name"},
		{"volumeMount of an unknown volume", func(_ *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "nowhere", MountPath: "/data"}}
		}, `spec.fuse.volumeMounts (mountPath /data) names volume "nowhere"`},
		{"worker volumeMount over the config", func(_ *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Worker.VolumeMounts = []corev1.VolumeMount{{Name: "scripts", MountPath: "/etc/fluid/config"}}
		}, "spec.worker.volumeMounts mountPath \"/etc/fluid/config\""},
		{"FUSE volumeMount over the mount directory", func(_ *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "scripts", MountPath: "/runtime-mnt/thin/team-a/imagenet"}}
		}, "spec.fuse.volumeMounts mountPath \"/runtime-mnt/thin/team-a/imagenet\""},
		{"user volume named like a chart volume", func(_ *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Volumes = []corev1.Volume{emptyDirVolume("thin-config")}
			rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "thin-config", MountPath: "/x"}}
		}, `names volume "thin-config", a name the chart uses`},
		{"pod label the chart selects on", func(_ *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Fuse.PodMetadata.Labels = map[string]string{"role": "mine"}
		}, `spec.fuse.podMetadata.labels sets "role"`},
		{"relative tieredstore path", func(_ *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.TieredStore.Levels[1].Path = "/mnt/ssd1,cache"
		}, `spec.tieredstore.levels[1].path: "cache"`},
		{"tieredstore path in two tiers", func(_ *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.TieredStore.Levels[1].Path = "/dev/shm/thin"
		}, "spec.tieredstore.levels[1].path: \"/dev/shm/thin\" is also a path of spec.tieredstore.levels[0]"},
		{"quotaList shorter than the paths", func(_ *datav1alpha1.Dataset, _ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.TieredStore.Levels[1].QuotaList = "10Gi"
		}, "spec.tieredstore.levels[1].quotaList has 1 entries for 2 paths"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, profile, rt := sample()
			tc.edit(ds, profile, rt)
			_, err := thin.ValuesFor(ds, profile, rt)
			enginetest.WantInvalid(t, err, tc.field)
		})
	}
}

// TestWorkerDisabledNeedsNoWorkerImage: the worker's image is only checked
// when workers run.
func TestWorkerDisabledNeedsNoWorkerImage(t *testing.T) {
	ds, profile, rt := sample()
	profile.Spec.Worker.Image, rt.Spec.Worker.Enabled = "", false
	if _, err := thin.ValuesFor(ds, profile, rt); err != nil {
		t.Fatal(err)
	}
}

// TestTierShapes: quotaList sizes each path; an emptyDir without quota has
// no limit; a level's volumeSource.emptyDir overrides medium and size.
func TestTierShapes(t *testing.T) {
	ds, profile, rt := sample()
	small := resource.MustParse("1Gi")
	rt.Spec.TieredStore.Levels = []datav1alpha1.Level{
		{MediumType: datav1alpha1.SSD, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/a,/b", QuotaList: "1Gi,3Gi"},
		{MediumType: datav1alpha1.HDD, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/c"},
		{MediumType: datav1alpha1.Memory, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/d", Quota: &small,
			VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: resource.NewQuantity(512<<20, resource.BinarySI)}}},
	}
	values, err := thin.ValuesFor(ds, profile, rt)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range values["cache"].([]any) {
		c := c.(map[string]any)
		got[c["path"].(string)] = c["type"].(string) + " " + str(c["medium"]) + " " + str(c["sizeLimit"])
	}
	want := map[string]string{"/a": "emptyDir  1Gi", "/b": "emptyDir  3Gi", "/c": "emptyDir  ", "/d": "emptyDir Memory 512Mi"}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("tier path %s = %q, want %q", p, got[p], w)
		}
	}
	_, out := render(t, ds, profile, rt)
	dsf := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml")
	pod := dsf.Spec.Template.Spec
	if m := enginetest.MountAt(pod.Containers[0], "/c"); m == nil || enginetest.Volume(pod, m.Name).EmptyDir == nil {
		t.Error("an emptyDir tier without size or medium must still render as an emptyDir")
	}
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return v.(string)
}
