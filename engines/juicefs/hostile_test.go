package juicefs_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

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
	rt.Spec.Worker.Options = map[string]string{"worker-key" + line: "worker-value" + line, "flag" + line: ""}
	rt.Spec.Fuse.Options = map[string]string{"fuse-key" + line: "fuse-value" + line}
	rt.Spec.TieredStore.Levels[0].Path = "/cache-a" + line + ",/cache-b" + line
	for _, c := range []*datav1alpha1.JuiceFSCompTemplateSpec{&rt.Spec.Worker} {
		c.NodeSelector = map[string]string{"worker-selector" + h: "worker-selected" + h}
		c.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"worker-label" + h: "worker-label-value" + h},
			Annotations: map[string]string{"worker-annotation" + h: "worker-annotation-value" + h}}
		c.Env = []corev1.EnvVar{{Name: "WORKER_NOTE", Value: "worker-env" + h}}
	}
	rt.Spec.Fuse.NodeSelector = map[string]string{"fuse-selector" + h: "fuse-selected" + h}
	rt.Spec.Fuse.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"fuse-label" + h: "fuse-label-value" + h},
		Annotations: map[string]string{"fuse-annotation" + h: "fuse-annotation-value" + h}}
	rt.Spec.Fuse.Env = []corev1.EnvVar{{Name: "FUSE_NOTE", Value: "fuse-env" + h}}
	ds.Spec.Mounts[0].EncryptOptions = append(ds.Spec.Mounts[0].EncryptOptions, datav1alpha1.EncryptOption{Name: "access-key",
		ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "secret-name" + h, Key: "secret-key" + h}}})
	ds.Spec.SharedEncryptOptions = []datav1alpha1.EncryptOption{{Name: "token",
		ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "shared-secret" + h, Key: "shared-key" + h}}}}
	ds.Spec.Tolerations = []corev1.Toleration{{Key: "toleration-key" + h, Operator: corev1.TolerationOpEqual, Value: "toleration-value" + h}}
	ds.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"affinity-value" + h}

	rel := enginetest.DecodeRelease(t, render(t, ds, rt), "team-a",
		map[string]string{"templates/worker-statefulset.yaml": "StatefulSet", "templates/fuse-daemonset.yaml": "DaemonSet"})
	rel.Runs(t, "worker-key"+line+"=worker-value"+line, "flag"+line, "fuse-key"+line+"=fuse-value"+line,
		"--cache-dir=/cache-a"+line+":/cache-b"+line)
	rel.Carries(t, "registry/juicefs"+line+":tag"+line, "/cache-a"+line, "/cache-b"+line,
		"worker-selector"+h, "worker-selected"+h, "worker-label"+h, "worker-label-value"+h, "worker-annotation"+h, "worker-annotation-value"+h, "worker-env"+h,
		"fuse-selector"+h, "fuse-selected"+h, "fuse-label"+h, "fuse-label-value"+h, "fuse-annotation"+h, "fuse-annotation-value"+h, "fuse-env"+h,
		"secret-name"+h, "secret-key"+h, "shared-secret"+h, "shared-key"+h, "toleration-key"+h, "toleration-value"+h, "affinity-value"+h)
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
			rt.Spec.Worker.Options = map[string]string{"k": "v" + h}
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
	} {
		ds, rt := sample()
		tc.set(ds, rt)
		_, err := juicefs.Engine{}.Values(ds, rt)
		enginetest.WantInvalid(t, err, tc.field)
	}
}
