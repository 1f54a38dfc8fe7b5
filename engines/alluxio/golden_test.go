package alluxio_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// sample is a Dataset of two S3 prefixes (nested mounts, with credentials
// from a Secret) cached by two workers on a memory and an SSD tier.
func sample() (*datav1alpha1.Dataset, *datav1alpha1.AlluxioRuntime) {
	mem, ssdQuota := resource.MustParse("2Gi"), resource.MustParse("100Gi")
	keys := []datav1alpha1.EncryptOption{
		{Name: "aws.accessKeyId", ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "minio-creds", Key: "access-key"}}},
		{Name: "aws.secretKey", ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "minio-creds", Key: "secret-key"}}},
	}
	ds := &datav1alpha1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a", UID: "7d1c2f9a-3b4e-4c5d-8e6f-0a1b2c3d4e5f"},
		Spec: datav1alpha1.DatasetSpec{
			Mounts: []datav1alpha1.Mount{
				{MountPoint: "s3://imagenet/train", Name: "train", ReadOnly: true},
				{MountPoint: "s3://imagenet/val", Name: "val", Path: "/validation", ReadOnly: true,
					Options: map[string]string{"alluxio.underfs.s3.inherit.acl": "false"}},
			},
			SharedOptions:        map[string]string{"alluxio.underfs.s3.endpoint": "http://minio.storage:9000", "alluxio.underfs.s3.disable.dns.buckets": "true"},
			SharedEncryptOptions: keys,
			Placement:            datav1alpha1.ShareMode,
			Tolerations:          []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			NodeAffinity: &datav1alpha1.CacheableNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"nvme"}}}}}}},
		},
	}
	rt := &datav1alpha1.AlluxioRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"},
		Spec: datav1alpha1.AlluxioRuntimeSpec{
			Replicas: 2,
			TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
				{MediumType: datav1alpha1.Memory, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/dev/shm", Quota: &mem},
				{MediumType: datav1alpha1.SSD, Path: "/mnt/ssd0,/mnt/ssd1", Quota: &ssdQuota, High: "0.95", Low: "0.7"},
			}},
			Properties: map[string]string{"alluxio.user.block.size.bytes.default": "64MB"},
			JvmOptions: []string{"-XX:+UseG1GC"},
			Master: datav1alpha1.AlluxioCompTemplateSpec{
				JvmOptions: []string{"-Xmx4g"},
				Properties: map[string]string{"alluxio.master.metastore": "ROCKS"},
				Resources:  corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("6Gi")}},
			},
			Worker: datav1alpha1.AlluxioCompTemplateSpec{
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}},
				Env:       map[string]string{"TZ": "UTC"},
			},
			Fuse: datav1alpha1.AlluxioFuseSpec{
				NodeSelector: map[string]string{"gpu": "true"},
				Properties:   map[string]string{"alluxio.user.metadata.cache.enabled": "true"},
			},
		},
	}
	return ds, rt
}

// render renders the chart for a Dataset and runtime with the Helm SDK,
// resolving spec.hadoopConfig against tenantObjects.
func render(t *testing.T, ds *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) map[string]string {
	t.Helper()
	_, out := enginetest.Render(t, alluxio.Engine{}, tenantObjects(), ds, rt)
	return out
}

// tenantObjects reads the objects of the sample's namespace: the ConfigMap
// "hdfs-conf" of Fluid's HA-HDFS recipe (hdfs-site.xml and core-site.xml)
// and "core-only" (core-site.xml and another file).
func tenantObjects() client.Reader {
	conf := func(name string, files ...string) client.Object {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"}, Data: map[string]string{}}
		for _, f := range files {
			cm.Data[f] = "<configuration></configuration>"
		}
		return cm
	}
	return fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(conf("hdfs-conf", "hdfs-site.xml", "core-site.xml"), conf("core-only", "core-site.xml", "log4j.properties")).Build()
}

// TestChartGolden renders the Alluxio chart with the Helm SDK for a sample
// Dataset and runtime and compares it with testdata/golden (go test
// -update rewrites them after a deliberate change).
func TestChartGolden(t *testing.T) {
	ds, rt := sample()
	enginetest.Golden(t, render(t, ds, rt), []string{"templates/config-configmap.yaml", "templates/fuse-daemonset.yaml",
		"templates/master-service.yaml", "templates/master-statefulset.yaml", "templates/mount-job.yaml", "templates/mounts-configmap.yaml",
		"templates/worker-statefulset.yaml"})
}

// TestChartDefaultsRender checks that values.yaml documents every value the
// templates read: the chart renders from its defaults and a name alone.
func TestChartDefaultsRender(t *testing.T) {
	out := enginetest.RenderValues(t, alluxio.Engine{}, map[string]any{"name": "demo", "namespace": "default", "datasetID": "default-demo"}, "demo", "default")
	if len(out) != 5 || !strings.Contains(out["templates/fuse-daemonset.yaml"], `name: "demo-fuse"`) {
		t.Errorf("rendered %v from the defaults", helm.SortedKeys(out))
	}
}

// TestChartGoldenVolumes renders the sample with spec.volumes mounted into
// every container (Fluid's other_volumes recipe: a Secret into the master,
// a host directory into the workers and FUSE) and compares it with
// testdata/golden/volumes.
func TestChartGoldenVolumes(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Volumes = []corev1.Volume{
		{Name: "certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "ufs-certs"}}},
		{Name: "scratch", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/scratch"}}},
		{Name: "unused", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	certs := []corev1.VolumeMount{{Name: "certs", MountPath: "/etc/ufs-certs", ReadOnly: true}}
	scratch := []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
	rt.Spec.Master.VolumeMounts, rt.Spec.JobMaster.VolumeMounts = certs, certs
	rt.Spec.Worker.VolumeMounts, rt.Spec.JobWorker.VolumeMounts = scratch, certs
	rt.Spec.Fuse.VolumeMounts = append(slices.Clone(certs), scratch...)
	enginetest.GoldenCase(t, "volumes", render(t, ds, rt), []string{"templates/config-configmap.yaml", "templates/fuse-daemonset.yaml",
		"templates/master-service.yaml", "templates/master-statefulset.yaml", "templates/mount-job.yaml", "templates/mounts-configmap.yaml",
		"templates/worker-statefulset.yaml"})
}

// TestChartGoldenHDFS renders the sample as Fluid's HA-HDFS and API
// gateway recipes set it up (spec.hadoopConfig naming a ConfigMap of
// hdfs-site.xml and core-site.xml, spec.data.replicas, a Dataset owner)
// and compares it with testdata/golden/hdfs.
func TestChartGoldenHDFS(t *testing.T) {
	ds, rt := sample()
	ds.Spec.Mounts = []datav1alpha1.Mount{{MountPoint: "hdfs://mycluster/", Name: "hadoop"}}
	ds.Spec.SharedOptions, ds.Spec.SharedEncryptOptions = nil, nil
	rt.Spec.HadoopConfig = "hdfs-conf"
	rt.Spec.APIGateway.Enabled = true
	rt.Spec.Data.Replicas = 2
	ds.Spec.Owner = &datav1alpha1.User{UID: ptr.To[int64](1201), GID: ptr.To[int64](1201), UserName: "fluid-user-1"}
	enginetest.GoldenCase(t, "hdfs", render(t, ds, rt), []string{"templates/config-configmap.yaml", "templates/fuse-daemonset.yaml",
		"templates/master-service.yaml", "templates/master-statefulset.yaml", "templates/mount-job.yaml", "templates/mounts-configmap.yaml",
		"templates/worker-statefulset.yaml"})
}
