package thin_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/thin"
)

// secretValue is the value of the sample Secret; it must appear nowhere
// the engine writes.
const secretValue = "s3cr3t-n0t-f0r-manifests"

func secretRef(name, key string) datav1alpha1.EncryptOptionSource {
	return datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: name, Key: key}}
}

// sample is an NFS dataset served by a ThinRuntime on profile "nfs-fuse",
// with workers, two cache tiers and encrypt options.
func sample() (*datav1alpha1.Dataset, *datav1alpha1.ThinRuntimeProfile, *datav1alpha1.ThinRuntime) {
	shm, ssd := resource.MustParse("2Gi"), resource.MustParse("100Gi")
	ds := &datav1alpha1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a", UID: "5d7c1b0e-2a44-4c1e-8f0e-6b1d2c3e4f50"},
		Spec: datav1alpha1.DatasetSpec{
			Mounts: []datav1alpha1.Mount{
				{MountPoint: "nfs://10.0.0.5/exports/train", Name: "train", Options: map[string]string{"timeo": "600"},
					EncryptOptions: []datav1alpha1.EncryptOption{{Name: "password", ValueFrom: secretRef("nfs-creds", "password")}}},
				{MountPoint: "nfs://10.0.0.5/exports/val", Name: "val", Path: "/validation", ReadOnly: true},
			},
			SharedOptions:        map[string]string{"vers": "4.1"},
			SharedEncryptOptions: []datav1alpha1.EncryptOption{{Name: "token", ValueFrom: secretRef("nfs-token", "token")}},
			AccessModes:          []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Placement:            datav1alpha1.ShareMode,
			Tolerations:          []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			NodeAffinity: &datav1alpha1.CacheableNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"nvme"}}}}}}},
		},
	}
	profile := &datav1alpha1.ThinRuntimeProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "nfs-fuse"},
		Spec: datav1alpha1.ThinRuntimeProfileSpec{
			FileSystemType: "fuse.nfs-fuse",
			Fuse: datav1alpha1.ThinFuseSpec{
				VersionSpec:  datav1alpha1.VersionSpec{Image: "registry.example.com/nfs-fuse", ImageTag: "v1.0", ImagePullPolicy: "Always"},
				Command:      []string{"/bin/sh", "-c"},
				Args:         []string{"python3 /scripts/config.py && exec /scripts/mount.sh"},
				Env:          []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "CACHE_MODE", Value: "none"}},
				Ports:        []corev1.ContainerPort{{Name: "health", ContainerPort: 9100}},
				Options:      map[string]string{"attr_timeout": "30"},
				Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")}},
				NodeSelector: map[string]string{"pool": "general"},
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("health")}},
					PeriodSeconds: 10},
				VolumeMounts: []corev1.VolumeMount{{Name: "scripts", MountPath: "/scripts", ReadOnly: true}},
			},
			Worker: datav1alpha1.ThinCompTemplateSpec{
				VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/nfs-cache", ImageTag: "v1.0"},
				Ports:       []corev1.ContainerPort{{Name: "cache", ContainerPort: 7000}},
				Replicas:    1,
			},
			Volumes: []corev1.Volume{{Name: "scripts", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "nfs-fuse-scripts"}}}}},
		},
	}
	rt := &datav1alpha1.ThinRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"},
		Spec: datav1alpha1.ThinRuntimeSpec{
			ProfileName: "nfs-fuse",
			Replicas:    2,
			Fuse: datav1alpha1.ThinFuseSpec{
				VersionSpec:  datav1alpha1.VersionSpec{ImageTag: "v1.1"},
				Env:          []corev1.EnvVar{{Name: "CACHE_MODE", Value: "page"}, {Name: "THREADS", Value: "8"}},
				Options:      map[string]string{"nolock": ""},
				Resources:    corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}},
				NodeSelector: map[string]string{"gpu": "true"},
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{
					Command: []string{"fusermount", "-u", thin.FusePath("team-a", "imagenet")}}}},
				PodMetadata: datav1alpha1.PodMetadata{Annotations: map[string]string{"example.com/team": "a"}},
			},
			Worker: datav1alpha1.ThinCompTemplateSpec{Enabled: true},
			TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
				{MediumType: datav1alpha1.Memory, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/dev/shm/thin", Quota: &shm},
				{MediumType: datav1alpha1.SSD, Path: "/mnt/ssd1,/mnt/ssd2", Quota: &ssd},
			}},
		},
	}
	return ds, profile, rt
}

// fakeReader holds the objects in a controller-runtime fake client, plus the
// sample Secrets (which the engine must never read into values).
func fakeReader(objs ...client.Object) client.Reader {
	secrets := []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "nfs-creds", Namespace: "team-a"}, StringData: map[string]string{"password": secretValue}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "nfs-token", Namespace: "team-a"}, StringData: map[string]string{"token": secretValue}},
	}
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(append(secrets, objs...)...).Build()
}

// render resolves the sample's values through the fake client and renders
// the chart with the Helm SDK.
func render(t *testing.T, ds *datav1alpha1.Dataset, profile *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) (map[string]any, map[string]string) {
	t.Helper()
	return enginetest.Render(t, thin.Engine{}, fakeReader(profile), ds, rt)
}
