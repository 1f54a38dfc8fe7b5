package thin_test

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/thin"
)

// TestHostileStringsRenderAsData feeds hostile strings through every
// string field of a ThinRuntime, its profile and its Dataset that reaches
// the chart, and checks that the chart still renders exactly its three
// objects in the runtime's namespace, each decoding strictly, with every
// string whole: in the manifests as given, in the FUSE configuration
// (config.json) once decoded, or in MOUNT_OPTIONS as the process reads it.
func TestHostileStringsRenderAsData(t *testing.T) {
	const h, line = enginetest.Hostile, enginetest.HostileLine
	ds, profile, rt := sample()
	f := &rt.Spec.Fuse
	f.Image, f.ImageTag = "registry/fuse"+line, "fuse-tag"+line
	f.Command, f.Args = []string{"/bin/fuse" + h}, []string{"fuse-arg" + h}
	f.Env = []corev1.EnvVar{{Name: "NOTE", Value: "fuse-env" + h}}
	f.Options = map[string]string{"fuse-option" + line: "fuse-option-value" + line}
	f.NodeSelector = map[string]string{"fuse-selector" + h: "fuse-selected" + h}
	f.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"label" + h: "label-value" + h}, Annotations: map[string]string{"annotation" + h: "annotation-value" + h}}
	f.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/fuse-mount" + h}}
	w := &rt.Spec.Worker
	w.Image, w.ImageTag = "registry/worker"+line, "worker-tag"+line
	w.Env = []corev1.EnvVar{{Name: "NOTE", Value: "worker-env" + h}}
	w.NodeSelector = map[string]string{"worker-selector" + h: "worker-selected" + h}
	w.VolumeMounts = []corev1.VolumeMount{{Name: "extra", MountPath: "/worker-mount" + h}}
	rt.Spec.Volumes = []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/host" + h}}}}
	rt.Spec.TieredStore.Levels[1].Path = "/ssd-a" + line + ",/ssd-b" + line
	profile.Spec.Fuse.Options = map[string]string{"profile-option" + line: "profile-option-value" + line}
	m := &ds.Spec.Mounts[0]
	m.MountPoint = "nfs://10.0.0.5/exports/" + h
	m.Options = map[string]string{"mount-option" + h: "mount-option-value" + h}
	m.EncryptOptions[0].ValueFrom = secretRef("secret-name"+h, "secret-key"+h)
	ds.Spec.SharedOptions = map[string]string{"shared-option" + h: "shared-option-value" + h}
	ds.Spec.Tolerations = []corev1.Toleration{{Key: "toleration-key" + h, Operator: corev1.TolerationOpEqual, Value: "toleration-value" + h}}
	ds.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"affinity-value" + h}

	_, out := render(t, ds, profile, rt)
	rel := enginetest.DecodeRelease(t, out, "team-a", map[string]string{
		"templates/fuse-config.yaml": "ConfigMap", "templates/fuse-daemonset.yaml": "DaemonSet", "templates/worker-statefulset.yaml": "StatefulSet"})
	rel.Carries(t, "registry/fuse"+line+":fuse-tag"+line, "registry/worker"+line+":worker-tag"+line, "/bin/fuse"+h, "fuse-arg"+h,
		"fuse-env"+h, "worker-env"+h, "fuse-selector"+h, "fuse-selected"+h, "worker-selector"+h, "worker-selected"+h,
		"label"+h, "label-value"+h, "annotation"+h, "annotation-value"+h, "/fuse-mount"+h, "/worker-mount"+h, "/host"+h,
		"/ssd-a"+line, "/ssd-b"+line, "secret-name"+h, "secret-key"+h, "toleration-key"+h, "toleration-value"+h, "affinity-value"+h)
	rel.Reads(t, "fuse-option"+line+"=fuse-option-value"+line, "profile-option"+line+"=profile-option-value"+line)

	var cfg thin.FuseConfig
	cm := rel.Objects["templates/fuse-config.yaml"].(*corev1.ConfigMap)
	if err := json.Unmarshal([]byte(cm.Data[thin.ConfigFile]), &cfg); err != nil {
		t.Fatalf("config.json: %v", err)
	}
	want := map[string]string{"mount-option" + h: "mount-option-value" + h, "shared-option" + h: "shared-option-value" + h}
	for k, v := range want {
		if cfg.Mounts[0].Options[k] != v {
			t.Errorf("config.json mount options %q lack %q=%q", cfg.Mounts[0].Options, k, v)
		}
	}
	if cfg.Mounts[0].MountPoint != "nfs://10.0.0.5/exports/"+h || cfg.RuntimeOptions["fuse-option"+line] != "fuse-option-value"+line {
		t.Errorf("config.json mount point %q, runtime options %q", cfg.Mounts[0].MountPoint, cfg.RuntimeOptions)
	}
}

// TestHostileStringsRefusedWhereNotData: what no container could take as
// it is (a line break in an image, a tag, a tier path or a FUSE option, a
// pull policy Kubernetes does not know, an option name that reads as a
// flag) is refused, naming the field.
func TestHostileStringsRefusedWhereNotData(t *testing.T) {
	const h = enginetest.Hostile
	for _, tc := range []struct {
		field string
		set   func(*datav1alpha1.ThinRuntimeProfile, *datav1alpha1.ThinRuntime)
	}{
		{"spec.fuse.image", func(_ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Fuse.Image = "fuse" + h
		}},
		{"spec.fuse.imageTag", func(_ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Fuse.ImageTag = "v1" + h
		}},
		{"spec.fuse.imagePullPolicy", func(p *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			p.Spec.Fuse.ImagePullPolicy = "IfNotPresent" + h
		}},
		{"spec.worker.image", func(p *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			p.Spec.Worker.Image = "worker" + h
		}},
		{"spec.worker.imagePullPolicy", func(_ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Worker.ImagePullPolicy = "Sometimes"
		}},
		{"spec.fuse.options", func(_ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.Fuse.Options = map[string]string{"k": "v" + h}
		}},
		{"spec.fuse.options", func(p *datav1alpha1.ThinRuntimeProfile, _ *datav1alpha1.ThinRuntime) {
			p.Spec.Fuse.Options = map[string]string{"-o": "allow_other"}
		}},
		{"spec.tieredstore.levels[1].path", func(_ *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) {
			rt.Spec.TieredStore.Levels[1].Path = "/mnt/ssd" + h
		}},
	} {
		ds, profile, rt := sample()
		tc.set(profile, rt)
		engine, err := thin.Engine{}.Resolve(t.Context(), fakeReader(profile), rt)
		if err == nil {
			_, err = engine.Values(ds, rt)
		}
		enginetest.WantInvalid(t, err, tc.field)
	}
}
