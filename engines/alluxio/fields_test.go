package alluxio_test

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// TestFieldsClassifyTheSchema: every AlluxioRuntime spec field has a row in
// alluxio.Fields, and every row a field.
func TestFieldsClassifyTheSchema(t *testing.T) {
	enginetest.CheckClassified(t, enginetest.SpecSchema(t, enginetest.CRDFile("alluxioruntimes")), alluxio.Fields)
}

// TestHonouredFieldsReachTheChart: setting any honoured field changes the
// rendered release, apart from the few that act outside the chart.
func TestHonouredFieldsReachTheChart(t *testing.T) {
	c := renderCase()
	enginetest.CheckHonouredRendered(t, c, enginetest.SpecSchema(t, enginetest.CRDFile("alluxioruntimes")), alluxio.Fields, samples,
		[]string{"spec.fuse.cleanPolicy", "spec.management.metadataSyncPolicy", "spec.management.cleanCachePolicy.gracePeriodSeconds", "spec.management.cleanCachePolicy.maxRetryAttempts"})
}

// TestTenantSafeFieldsStayOutOfHostContainers: no field the trust table
// calls tenant-safe changes what the engine's privileged or host-network
// containers run or mount (issue 30).
func TestTenantSafeFieldsStayOutOfHostContainers(t *testing.T) {
	// What changes a host container through the platform, and why.
	exempt := map[string]string{
		"spec.disablePrometheus": "removes the platform's metrics configuration mount from the FUSE container; adds nothing",
		"spec.hadoopConfig":      "mounts a ConfigMap of the runtime's namespace read-only at /hdfs-config: hdfs-site.xml and core-site.xml, configuration Alluxio's HDFS client reads and no program executes",
	}
	maps.Copy(exempt, enginetest.TierVolumeExempt)
	enginetest.CheckTenantSafeStaysOut(t, renderCase(), enginetest.SpecSchema(t, enginetest.CRDFile("alluxioruntimes")), "AlluxioRuntime", alluxio.Fields, samples, exempt)
}

// renderCase is the render tests' baseline, with the alternates some
// fields need.
func renderCase() enginetest.RenderCase {
	ds, rt := sample()
	c := enginetest.RenderCase{Engine: alluxio.Engine{}, Reader: tenantObjects(), Dataset: ds, Runtime: rt}
	// Volumes reach a pod when one of its containers mounts them.
	volDS, volRT := sample()
	volRT.Spec.Volumes = []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	volRT.Spec.Master.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/extra"}}
	vol := &enginetest.RenderCase{Engine: alluxio.Engine{}, Reader: tenantObjects(), Dataset: volDS, Runtime: volRT}
	c.Alternate = map[string]*enginetest.RenderCase{"spec.volumes": vol}
	for _, comp := range []string{"master", "jobMaster", "worker", "jobWorker", "fuse"} {
		c.Alternate["spec."+comp+".volumeMounts"] = vol
	}
	// The API gateway's fields act once it runs.
	gwDS, gwRT := sample()
	gwRT.Spec.APIGateway.Enabled = true
	gw := &enginetest.RenderCase{Engine: alluxio.Engine{}, Reader: tenantObjects(), Dataset: gwDS, Runtime: gwRT}
	for _, f := range []string{"env", "jvmOptions", "ports", "properties", "resources"} {
		c.Alternate["spec.apiGateway."+f] = gw
	}
	gwVolDS, gwVolRT := sample()
	gwVolRT.Spec.APIGateway.Enabled, gwVolRT.Spec.Volumes = true, volRT.Spec.Volumes
	c.Alternate["spec.apiGateway.volumeMounts"] = &enginetest.RenderCase{Engine: alluxio.Engine{}, Reader: tenantObjects(), Dataset: gwVolDS, Runtime: gwVolRT}
	return c
}

var samples = map[string]any{
	"spec.hadoopConfig":                      "hdfs-conf",
	"spec.initUsers":                         map[string]any{"image": "registry.example/init-users", "imageTag": "v1"},
	"spec.volumes":                           []any{map[string]any{"name": "extra", "hostPath": map[string]any{"path": "/mnt/extra"}}},
	"spec.master.volumeMounts":               extraMount,
	"spec.jobMaster.volumeMounts":            extraMount,
	"spec.worker.volumeMounts":               extraMount,
	"spec.jobWorker.volumeMounts":            extraMount,
	"spec.apiGateway.volumeMounts":           extraMount,
	"spec.apiGateway.resources":              resourcesSample,
	"spec.apiGateway.ports":                  map[string]any{"rest": int64(39990)},
	"spec.fuse.volumeMounts":                 extraMount,
	"spec.alluxioVersion":                    map[string]any{"image": "registry.example/alluxio", "imageTag": "2.9.9"},
	"spec.master.resources":                  resourcesSample,
	"spec.worker.resources":                  resourcesSample,
	"spec.jobMaster.resources":               resourcesSample,
	"spec.jobWorker.resources":               resourcesSample,
	"spec.fuse.resources":                    resourcesSample,
	"spec.master.ports":                      map[string]any{"rpc": int64(29998)},
	"spec.jobMaster.ports":                   map[string]any{"rpc": int64(29997)},
	"spec.worker.ports":                      map[string]any{"rpc": int64(29995)},
	"spec.jobWorker.ports":                   map[string]any{"rpc": int64(29994)},
	"spec.podMetadata":                       podMetadataSample,
	"spec.master.podMetadata":                podMetadataSample,
	"spec.worker.podMetadata":                podMetadataSample,
	"spec.fuse.podMetadata":                  podMetadataSample,
	"spec.imagePullSecrets":                  pullSecretsSample,
	"spec.master.imagePullSecrets":           pullSecretsSample,
	"spec.worker.imagePullSecrets":           pullSecretsSample,
	"spec.fuse.imagePullSecrets":             pullSecretsSample,
	"spec.master.replicas":                   int64(3),
	"spec.runAs":                             map[string]any{"uid": int64(1000), "gid": int64(1000), "user": "alice", "group": "staff"},
	"spec.tieredstore.levels[].high":         "0.9",
	"spec.tieredstore.levels[].low":          "0.5",
	"spec.tieredstore.levels[].mediumtype":   "HDD",
	"spec.fuse.imagePullPolicy":              "Always",
	"spec.master.networkMode":                "HostNetwork",
	"spec.worker.networkMode":                "HostNetwork",
	"spec.tieredstore.levels[].path":         "/dev/shm/alluxio",
	"spec.tieredstore.levels[].quota":        "3Gi",
	"spec.tieredstore.levels[].quotaList":    "30Gi,40Gi",
	"spec.tieredstore.levels[].volumeSource": map[string]any{"emptyDir": map[string]any{"sizeLimit": "5Gi"}},
	"spec.tieredstore.levels[].volumeType":   "emptyDir",
}

var (
	extraMount        = []any{map[string]any{"name": "extra", "mountPath": "/other", "readOnly": true}}
	resourcesSample   = map[string]any{"requests": map[string]any{"cpu": "250m"}}
	podMetadataSample = map[string]any{"labels": map[string]any{"team": "vision"}, "annotations": map[string]any{"example.com/note": "x"}}
	pullSecretsSample = []any{map[string]any{"name": "registry-creds"}}
)

// TestValuesRefuseRefusedFields: a runtime admitted while the webhook was
// down still fails, InvalidSpec naming the field.
func TestValuesRefuseRefusedFields(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Data.Pin = true
	_, err := alluxio.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "spec.data.pin: Sluice's Alluxio engine does not pin", "alluxio fs pin")
}

// TestUserVolumesAreChecked: a volumeMount naming no spec.volumes entry,
// and a volume taking a name of the chart's, are refused naming the field.
func TestUserVolumesAreChecked(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "missing", MountPath: "/m"}}
	_, err := alluxio.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, `spec.fuse.volumeMounts[0] mounts volume "missing", which is not in spec.volumes`)

	ds, rt = sample()
	rt.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	rt.Spec.Worker.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/c"}}
	_, err = alluxio.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, `spec.volumes[0].name "config" is a volume the chart gives the pod`)
}
