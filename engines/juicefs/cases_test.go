package juicefs_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// secretOption is an encrypt option naming a key of the Secret jfs-secret.
func secretOption(name string) datav1alpha1.EncryptOption {
	return datav1alpha1.EncryptOption{Name: name, ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "jfs-secret", Key: name}}}
}

// enterpriseSample is the sample with a token instead of a metaurl: JuiceFS
// enterprise edition.
func enterpriseSample() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
	ds, rt := sample()
	ds.Spec.Mounts[0].EncryptOptions = []datav1alpha1.EncryptOption{secretOption("access-key"), secretOption("secret-key")}
	ds.Spec.SharedEncryptOptions = []datav1alpha1.EncryptOption{secretOption("token")}
	rt.Spec.Fuse.Options = map[string]string{"attrcacheto": "7200"}
	return ds, rt
}

// goldenCases are the features a golden render each proves; each case
// changes the sample.
var goldenCases = map[string]func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime){
	// Community edition: storage, bucket and format flags from the
	// options, the keys from Secrets, spec.configs, a quota on the subdir.
	"ce-format-secrets": func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
		ds, rt := sample()
		ds.Spec.SharedOptions = map[string]string{"storage": "s3", "trash-days": "0"}
		ds.Spec.Mounts[0].Options = map[string]string{"bucket": "https://bucket.s3.amazonaws.com", "quota": "100Gi", "max-uploads": "40"}
		ds.Spec.Mounts[0].EncryptOptions = append(ds.Spec.Mounts[0].EncryptOptions, secretOption("access-key"), secretOption("secret-key"))
		rt.Spec.Configs = &[]string{"block-size=4096", "hash-prefix"}
		return ds, rt
	},
	// The mount point's path is the mounted sub-directory; the volume is
	// named after the Dataset when the mount has no name.
	"subdir": func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
		ds, rt := sample()
		ds.Spec.Mounts[0].MountPoint, ds.Spec.Mounts[0].Name = "juicefs:///team/data", ""
		return ds, rt
	},
	// The volume's root: no --subdir.
	"root": func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
		ds, rt := sample()
		ds.Spec.Mounts[0].MountPoint = "juicefs:///"
		return ds, rt
	},
	// Enterprise edition: juicefs auth with the token and keys, then
	// mount.juicefs -o with the cache group.
	"ee-token": enterpriseSample,
	// Options as mount.juicefs maps them: flags, aliases, bool flags, FUSE
	// options; cache-dir in options replaces the tier's directories.
	"options": func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
		ds, rt := sample()
		ds.Spec.Mounts[0].Options = map[string]string{"bucket": "http://minio:9000/jfs", "buffer-size": "1024"}
		rt.Spec.Worker.Options = map[string]string{"cache-dir": "/var/worker-cache", "free-space-ratio": "0.2"}
		rt.Spec.Fuse.Options = map[string]string{"attrcacheto": "60", "allow_other": "", "enable-xattr": "", "debug": "", "buffer-size": "300", "cache-size": "0"}
		rt.Spec.TieredStore.Levels[0].Low = "0.1"
		return ds, rt
	},
	// Runtime-level labels and annotations reach workers and FUSE; the
	// component's win on a conflict.
	"podmetadata": func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
		ds, rt := sample()
		rt.Spec.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"team": "a", "tier": "runtime"}, Annotations: map[string]string{"mesh/inject": "false"}}
		rt.Spec.Worker.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"tier": "worker"}}
		rt.Spec.Fuse.PodMetadata = datav1alpha1.PodMetadata{Annotations: map[string]string{"mesh/inject": "true"}}
		return ds, rt
	},
	// spec.volumes mounted where the components' volumeMounts say; claim
	// templates on the workers.
	"volumes": func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
		ds, rt := sample()
		rt.Spec.Volumes = []corev1.Volume{
			{Name: "ca", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "ca-bundle"}}},
			{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		}
		rt.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "spill"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}}}}
		rt.Spec.Worker.VolumeMounts = []corev1.VolumeMount{{Name: "ca", MountPath: "/etc/ssl/jfs", ReadOnly: true}, {Name: "spill", MountPath: "/spill"}}
		rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "ca", MountPath: "/etc/ssl/jfs", ReadOnly: true}, {Name: "scratch", MountPath: "/scratch"}}
		return ds, rt
	},
	// A read-only Dataset: FUSE mounts read-only and caches metadata for
	// two hours (as Fluid), unless its options say otherwise.
	"read-only": func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
		ds, rt := sample()
		ds.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany}
		rt.Spec.Fuse.Options = map[string]string{"attr-cache": "60"}
		return ds, rt
	},
	// A FUSE image of its own, no Prometheus endpoint, a memory tier.
	"fuse-image": func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
		ds, rt := sample()
		rt.Spec.Fuse.Image, rt.Spec.Fuse.ImageTag, rt.Spec.Fuse.ImagePullPolicy = "registry.example/juicefs-fuse", "ce-v1.2.1-patched", "Always"
		rt.Spec.DisablePrometheus = true
		rt.Spec.TieredStore.Levels[0] = datav1alpha1.Level{MediumType: datav1alpha1.Memory, VolumeType: datav1alpha1.VolumeTypeEmptyDir,
			Path: "/dev/shm/jfs", Quota: rt.Spec.TieredStore.Levels[0].Quota}
		return ds, rt
	},
}

// TestChartGoldenCases renders each feature's case and compares it with
// testdata/golden/<case> (go test -update rewrites them).
func TestChartGoldenCases(t *testing.T) {
	for name, mk := range goldenCases {
		t.Run(name, func(t *testing.T) {
			ds, rt := mk()
			enginetest.GoldenCase(t, name, render(t, ds, rt), []string{"templates/fuse-daemonset.yaml", "templates/worker-statefulset.yaml"})
		})
	}
}
