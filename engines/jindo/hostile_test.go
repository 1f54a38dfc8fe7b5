package jindo_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/jindo"
)

// TestHostileStringsRenderAsData feeds hostile strings through every
// string field of a JindoRuntime and its Dataset that reaches the chart,
// and checks that the chart still renders exactly its five objects in the
// runtime's namespace, each decoding strictly, with every string whole in
// the manifests (configuration lines included) or, for FUSE arguments the
// engine adds, as the process's arguments after the kubelet's expansion.
func TestHostileStringsRenderAsData(t *testing.T) {
	const h, line = enginetest.Hostile, enginetest.HostileLine
	ds, rt := sample()
	rt.Spec.JindoVersion = datav1alpha1.VersionSpec{Image: "registry/jindo" + line, ImageTag: "tag" + line, ImagePullPolicy: "Always"}
	f := &rt.Spec.Fuse
	f.Image, f.ImageTag, f.ImagePullPolicy = "registry/fuse"+line, "fuse-tag"+line, "Never"
	f.Args = []string{"-oauto_cache", "-onote=" + h}
	rt.Spec.TieredStore.Levels[0].Path = "/disk-a" + line + ",/disk-b" + line
	rt.Spec.Properties = map[string]string{"runtime.note": "runtime-property" + line}
	rt.Spec.Labels = map[string]string{"label" + h: "label-value" + h}
	rt.Spec.PodMetadata = datav1alpha1.PodMetadata{Annotations: map[string]string{"annotation" + h: "annotation-value" + h}}
	rt.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull-secret" + h}}
	rt.Spec.Volumes = []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/host" + h}}}}
	for name, c := range map[string]*datav1alpha1.JindoCompTemplateSpec{"master": &rt.Spec.Master, "worker": &rt.Spec.Worker} {
		c.Properties = map[string]string{name + ".note": name + "-property" + line}
		c.Env = map[string]string{"NOTE": name + "-env" + h}
		c.NodeSelector = map[string]string{name + "-selector" + h: name + "-selected" + h}
		c.Tolerations = []corev1.Toleration{{Key: name + "-toleration" + h, Operator: corev1.TolerationOpExists}}
		c.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/" + name + h}}
	}
	f.Properties = map[string]string{"fuse.note": "fuse-property" + line}
	f.Env = map[string]string{"NOTE": "fuse-env" + h}
	f.NodeSelector = map[string]string{"fuse-selector" + h: "fuse-selected" + h}
	f.Tolerations = []corev1.Toleration{{Key: "fuse-toleration" + h, Operator: corev1.TolerationOpExists}}
	ds.Spec.Mounts[0].Options["fs.oss.note"] = "mount-option" + line
	ds.Spec.Mounts[1].MountPoint = "local:///labels" + line
	ds.Spec.Mounts[0].EncryptOptions[0].ValueFrom = secretRef("secret-name"+h, "secret-key"+h)
	ds.Spec.SharedEncryptOptions[0].ValueFrom = secretRef("secret-name"+h, "shared-key"+h)
	ds.Spec.Tolerations = []corev1.Toleration{{Key: "toleration-key" + h, Operator: corev1.TolerationOpEqual, Value: "toleration-value" + h}}
	ds.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"affinity-value" + h}

	rel := enginetest.DecodeRelease(t, render(t, ds, rt), "team-a", map[string]string{
		"templates/configmap.yaml": "ConfigMap", "templates/fuse-daemonset.yaml": "DaemonSet", "templates/master-service.yaml": "Service",
		"templates/master-statefulset.yaml": "StatefulSet", "templates/worker-statefulset.yaml": "StatefulSet"})
	rel.Carries(t, "registry/jindo"+line+":tag"+line, "registry/fuse"+line+":fuse-tag"+line, "-onote="+h, "/disk-a"+line, "/disk-b"+line,
		"runtime.note = runtime-property"+line, "master.note = master-property"+line, "worker.note = worker-property"+line,
		"fuse.note = fuse-property"+line, "fs.oss.note = mount-option"+line, "/labels"+line,
		"label"+h, "label-value"+h, "annotation"+h, "annotation-value"+h, "pull-secret"+h, "/host"+h, "/master"+h, "/worker"+h,
		"master-env"+h, "worker-env"+h, "fuse-env"+h, "master-selector"+h, "master-selected"+h, "worker-selector"+h, "worker-selected"+h,
		"fuse-selector"+h, "fuse-selected"+h, "master-toleration"+h, "worker-toleration"+h, "fuse-toleration"+h,
		"secret-name"+h, "secret-key"+h, "shared-key"+h, "toleration-key"+h, "toleration-value"+h, "affinity-value"+h)

	// FUSE alone reads the mount point from an argument the engine adds.
	ds, rt = sample()
	ds.Spec.Mounts = ds.Spec.Mounts[:1]
	ds.Spec.Mounts[0].MountPoint = "oss://imagenet-bucket/" + line
	rt.Spec.Master.Disabled, rt.Spec.Worker.Disabled = true, true
	rel = enginetest.DecodeRelease(t, render(t, ds, rt), "team-a", map[string]string{
		"templates/configmap.yaml": "ConfigMap", "templates/fuse-daemonset.yaml": "DaemonSet"})
	rel.Runs(t, "-ouri=oss://imagenet-bucket/"+line)
}

// TestHostileStringsRefusedWhereNotData: what no JindoCache process could
// take as it is (a line break in an image, a tag, a tier path or a
// configuration line, a pull policy Kubernetes does not know, an
// environment variable name that is none) is refused by Values, naming the
// field.
func TestHostileStringsRefusedWhereNotData(t *testing.T) {
	const h = enginetest.Hostile
	for _, tc := range []struct {
		field string
		set   func(*datav1alpha1.Dataset, *datav1alpha1.JindoRuntime)
	}{
		{"spec.jindoVersion.image", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { rt.Spec.JindoVersion.Image = "jindo" + h }},
		{"spec.jindoVersion.imageTag", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { rt.Spec.JindoVersion.ImageTag = "6" + h }},
		{"spec.jindoVersion.imagePullPolicy", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.JindoVersion.ImagePullPolicy = "IfNotPresent" + h
		}},
		{"spec.fuse.image", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { rt.Spec.Fuse.Image = "fuse" + h }},
		{"spec.fuse.imageTag", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) { rt.Spec.Fuse.ImageTag = "6" + h }},
		{"spec.fuse.imagePullPolicy", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Fuse.ImagePullPolicy = "Sometimes"
		}},
		{"spec.tieredstore.levels[0].path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.TieredStore.Levels[0].Path = "/mnt/disk" + h
		}},
		{"spec.properties", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Properties = map[string]string{"a": "b" + h}
		}},
		{"spec.master.properties", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Master.Properties = map[string]string{"a" + h: "b"}
		}},
		{"spec.worker.env", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Worker.Env = map[string]string{"A" + h: "b"}
		}},
		{"dataset spec.mounts[0].options", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.JindoRuntime) {
			ds.Spec.Mounts[0].Options["fs.oss.note"] = "b" + h
		}},
	} {
		ds, rt := sample()
		tc.set(ds, rt)
		_, err := jindo.Engine{}.Values(ds, rt)
		enginetest.WantInvalid(t, err, tc.field)
	}
}
