package juicefs_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// TestHostileStringsRenderAsData feeds hostile strings through every
// string field of a JuiceFSRuntime and its Dataset that reaches the chart,
// and checks that the chart still renders exactly its two objects in the
// runtime's namespace, each decoding strictly, with every string whole:
// in the manifests as given, or, for command-line parts, as the process's
// arguments after the kubelet's expansion.
func TestHostileStringsRenderAsData(t *testing.T) {
	const h, line = enginetest.Hostile, enginetest.HostileLine
	ds, rt := sample()
	rt.Spec.JuiceFSVersion = datav1alpha1.VersionSpec{Image: "registry/juicefs" + line, ImageTag: "tag" + line, ImagePullPolicy: "Always"}
	rt.Spec.Fuse.Image, rt.Spec.Fuse.ImageTag = "registry/fuse"+line, "fuse-tag"+line
	rt.Spec.Worker.Options = map[string]string{"custom-labels": "worker-value" + line, "enable-xattr": ""}
	rt.Spec.Fuse.Options = map[string]string{"log-id": "fuse-value" + line, "max_read": "fuse-option" + line}
	// ':' and ',' separate cache directories, so a path is fed the line
	// without its ':'.
	path := strings.ReplaceAll(line, ":", "")
	rt.Spec.TieredStore.Levels[0].Path = "/cache-a" + path + ",/cache-b" + path
	rt.Spec.TieredStore.Levels[0].Low = "low" + line
	rt.Spec.Configs = &[]string{"block-size=config" + line}
	ds.Spec.Mounts[0].MountPoint = "juicefs:///sub" + line
	ds.Spec.Mounts[0].Options = map[string]string{"storage": "storage" + line, "bucket": "bucket" + line, "quota": "2Gi", "upload-limit": "limit" + line}
	ds.Spec.SharedOptions = map[string]string{"trash-days": "days" + line}
	for _, c := range []*datav1alpha1.JuiceFSCompTemplateSpec{&rt.Spec.Worker} {
		c.NodeSelector = map[string]string{"worker-selector" + h: "worker-selected" + h}
		c.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"worker-label" + h: "worker-label-value" + h},
			Annotations: map[string]string{"worker-annotation" + h: "worker-annotation-value" + h}}
		c.Env = []corev1.EnvVar{{Name: "WORKER_NOTE", Value: "worker-env" + h}}
		c.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/worker-mount" + h, SubPath: "worker-sub" + h},
			{Name: "claim", MountPath: "/claim-mount" + h}}
	}
	rt.Spec.Fuse.NodeSelector = map[string]string{"fuse-selector" + h: "fuse-selected" + h}
	rt.Spec.Fuse.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"fuse-label" + h: "fuse-label-value" + h},
		Annotations: map[string]string{"fuse-annotation" + h: "fuse-annotation-value" + h}}
	rt.Spec.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"runtime-label" + h: "runtime-label-value" + h},
		Annotations: map[string]string{"runtime-annotation" + h: "runtime-annotation-value" + h}}
	rt.Spec.Fuse.Env = []corev1.EnvVar{{Name: "FUSE_NOTE", Value: "fuse-env" + h}}
	rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/fuse-mount" + h}}
	rt.Spec.Volumes = []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/host-dir" + h}}}}
	rt.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "claim"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("class" + h)}}}
	ds.Spec.Mounts[0].EncryptOptions = append(ds.Spec.Mounts[0].EncryptOptions, datav1alpha1.EncryptOption{Name: "access-key",
		ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "secret-name" + h, Key: "secret-key" + h}}})
	ds.Spec.SharedEncryptOptions = []datav1alpha1.EncryptOption{{Name: "secret-key",
		ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "shared-secret" + h, Key: "shared-key" + h}}}}
	ds.Spec.Tolerations = []corev1.Toleration{{Key: "toleration-key" + h, Operator: corev1.TolerationOpEqual, Value: "toleration-value" + h}}
	ds.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"affinity-value" + h}

	rel := enginetest.DecodeRelease(t, render(t, ds, rt), "team-a",
		map[string]string{"templates/worker-statefulset.yaml": "StatefulSet", "templates/fuse-daemonset.yaml": "DaemonSet"})
	rel.Runs(t, "--custom-labels=worker-value"+line, "--log-id=fuse-value"+line, "max_read=fuse-option"+line,
		"--cache-dir=/cache-a"+path+":/cache-b"+path, "--free-space-ratio=low"+line, "--subdir=/sub"+line, "--path=/sub"+line,
		"--block-size=config"+line, "--storage=storage"+line, "--bucket=bucket"+line, "--trash-days=days"+line, "--upload-limit=limit"+line)
	rel.Carries(t, "registry/juicefs"+line+":tag"+line, "registry/fuse"+line+":fuse-tag"+line, "/cache-a"+path, "/cache-b"+path,
		"worker-selector"+h, "worker-selected"+h, "worker-label"+h, "worker-label-value"+h, "worker-annotation"+h, "worker-annotation-value"+h, "worker-env"+h,
		"fuse-selector"+h, "fuse-selected"+h, "fuse-label"+h, "fuse-label-value"+h, "fuse-annotation"+h, "fuse-annotation-value"+h, "fuse-env"+h,
		"runtime-label"+h, "runtime-label-value"+h, "runtime-annotation"+h, "runtime-annotation-value"+h,
		"/worker-mount"+h, "worker-sub"+h, "/claim-mount"+h, "/fuse-mount"+h, "/host-dir"+h, "class"+h,
		"secret-name"+h, "secret-key"+h, "shared-secret"+h, "shared-key"+h, "toleration-key"+h, "toleration-value"+h, "affinity-value"+h)
}

// TestHostileEnterpriseStringsRenderAsData: the enterprise edition's
// strings (auth flags, mount.juicefs -o options) arrive whole too.
func TestHostileEnterpriseStringsRenderAsData(t *testing.T) {
	const h, line = enginetest.Hostile, enginetest.HostileLine
	ds, rt := enterpriseSample()
	ds.Spec.Mounts[0].Options = map[string]string{"bucket": "bucket" + line, "upload-limit": "limit" + line}
	rt.Spec.Fuse.Options = map[string]string{"fuse-key" + line: "fuse-value" + line}
	rt.Spec.Worker.Options = map[string]string{"cache-group": "group" + line}
	rt.Spec.Configs = &[]string{"conf-key=conf" + line}
	ds.Spec.SharedEncryptOptions[0].ValueFrom.SecretKeyRef = datav1alpha1.SecretKeySelector{Name: "token-secret" + h, Key: "token-key" + h}
	rel := enginetest.DecodeRelease(t, render(t, ds, rt), "team-a",
		map[string]string{"templates/worker-statefulset.yaml": "StatefulSet", "templates/fuse-daemonset.yaml": "DaemonSet"})
	rel.Runs(t, "--bucket=bucket"+line, "upload-limit=limit"+line, "fuse-key"+line+"=fuse-value"+line, "cache-group=group"+line, "--conf-key=conf"+line)
	rel.Carries(t, "token-secret"+h, "token-key"+h)
}

// TestHostileStringsRefusedWhereNotData: strings that no container could
// take as they are (a line break in an image, a tag, an option, a cache
// path; a pull policy Kubernetes does not know; an option name that reads
// as a flag; an encrypt option name that is no variable name) are refused
// by Values, naming the field.
func TestHostileStringsRefusedWhereNotData(t *testing.T) {
	const h = enginetest.Hostile
	for _, tc := range []struct {
		field string
		set   func(*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime)
	}{
		{"spec.juicefsVersion.image", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.JuiceFSVersion.Image = "juicefs" + h
		}},
		{"spec.juicefsVersion.imageTag", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.JuiceFSVersion.ImageTag = "v1" + h
		}},
		{"spec.juicefsVersion.imagePullPolicy", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.JuiceFSVersion.ImagePullPolicy = "IfNotPresent" + h
		}},
		{"spec.fuse.image", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) { rt.Spec.Fuse.Image = "juicefs" + h }},
		{"spec.fuse.imageTag", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) { rt.Spec.Fuse.ImageTag = "v1" + h }},
		{"spec.fuse.imagePullPolicy", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Fuse.ImagePullPolicy = "Sometimes"
		}},
		{"spec.worker.options", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Worker.Options = map[string]string{"log-id": "v" + h}
		}},
		{"spec.worker.options", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Worker.Options = map[string]string{"--cache-dir": "/"}
		}},
		{"spec.fuse.options", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Fuse.Options = map[string]string{"k" + h: "v"}
		}},
		{"spec.fuse.options", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Fuse.Options = map[string]string{"": "v"}
		}},
		{"spec.tieredstore.levels[0].path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.TieredStore.Levels[0].Path = "/cache" + h
		}},
		{"dataset spec.mounts[0].encryptOptions[0].name", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].EncryptOptions[0].Name = "metaurl" + h
		}},
		{"dataset spec.sharedEncryptOptions[0].name", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.SharedEncryptOptions = []datav1alpha1.EncryptOption{{Name: "$(METAURL)"}}
		}},
		{"dataset spec.mounts[0].mountPoint", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].MountPoint = "juicefs:///sub" + h
		}},
		{"dataset spec.mounts[0].name", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].Name = "vol" + h
		}},
		{"dataset spec.mounts[0].options[\"trash-days\"]", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JuiceFSRuntime) {
			ds.Spec.Mounts[0].Options = map[string]string{"trash-days": "1" + h}
		}},
		{"spec.configs[0]", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Configs = &[]string{"block-size=4" + h}
		}},
	} {
		ds, rt := sample()
		tc.set(ds, rt)
		_, err := juicefs.Engine{}.Values(ds, rt)
		enginetest.WantInvalid(t, err, tc.field)
	}
}
