package thin_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/thin"
)

func profileWith(f datav1alpha1.ThinFuseSpec, w datav1alpha1.ThinCompTemplateSpec, vols ...corev1.Volume) *datav1alpha1.ThinRuntimeProfile {
	return &datav1alpha1.ThinRuntimeProfile{Spec: datav1alpha1.ThinRuntimeProfileSpec{FileSystemType: "fuse.x", Fuse: f, Worker: w, Volumes: vols}}
}

func runtimeWith(f datav1alpha1.ThinFuseSpec, w datav1alpha1.ThinCompTemplateSpec, vols ...corev1.Volume) *datav1alpha1.ThinRuntime {
	return &datav1alpha1.ThinRuntime{Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: "p", Fuse: f, Worker: w, Volumes: vols}}
}

func probe(path string) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path}}}
}

func emptyDirVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

func TestMergePrecedence(t *testing.T) {
	none := datav1alpha1.ThinFuseSpec{}
	noWorker := datav1alpha1.ThinCompTemplateSpec{}
	for _, tc := range []struct {
		name    string
		profile *datav1alpha1.ThinRuntimeProfile
		rt      *datav1alpha1.ThinRuntime
		check   func(thin.Resolved) any
		want    any
	}{
		{"image from the profile when the runtime sets none",
			profileWith(datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "p/fuse", ImageTag: "1", ImagePullPolicy: "Always"}}, noWorker),
			runtimeWith(none, noWorker),
			func(r thin.Resolved) any { return r.Fuse.VersionSpec },
			datav1alpha1.VersionSpec{Image: "p/fuse", ImageTag: "1", ImagePullPolicy: "Always"}},
		{"each image field of the runtime wins on its own",
			profileWith(datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "p/fuse", ImageTag: "1", ImagePullPolicy: "Always"}}, noWorker),
			runtimeWith(datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{ImageTag: "2"}}, noWorker),
			func(r thin.Resolved) any { return r.Fuse.VersionSpec },
			datav1alpha1.VersionSpec{Image: "p/fuse", ImageTag: "2", ImagePullPolicy: "Always"}},
		{"command and args are replaced whole",
			profileWith(datav1alpha1.ThinFuseSpec{Command: []string{"/p"}, Args: []string{"a", "b"}}, noWorker),
			runtimeWith(datav1alpha1.ThinFuseSpec{Args: []string{"c"}}, noWorker),
			func(r thin.Resolved) any { return [][]string{r.Fuse.Command, r.Fuse.Args} },
			[][]string{{"/p"}, {"c"}}},
		{"env merges by name, keeping the profile's order",
			profileWith(datav1alpha1.ThinFuseSpec{Env: []corev1.EnvVar{{Name: "A", Value: "p"}, {Name: "B", Value: "p"}}}, noWorker),
			runtimeWith(datav1alpha1.ThinFuseSpec{Env: []corev1.EnvVar{{Name: "C", Value: "r"}, {Name: "A", Value: "r"}}}, noWorker),
			func(r thin.Resolved) any { return r.Fuse.Env },
			[]corev1.EnvVar{{Name: "A", Value: "r"}, {Name: "B", Value: "p"}, {Name: "C", Value: "r"}}},
		{"ports merge by name, unnamed ones by number",
			profileWith(datav1alpha1.ThinFuseSpec{Ports: []corev1.ContainerPort{{Name: "m", ContainerPort: 1}, {ContainerPort: 2}}}, noWorker),
			runtimeWith(datav1alpha1.ThinFuseSpec{Ports: []corev1.ContainerPort{{Name: "m", ContainerPort: 3}, {ContainerPort: 2, Protocol: corev1.ProtocolTCP, HostPort: 2}}}, noWorker),
			func(r thin.Resolved) any { return r.Fuse.Ports },
			[]corev1.ContainerPort{{Name: "m", ContainerPort: 3}, {ContainerPort: 2, Protocol: corev1.ProtocolTCP, HostPort: 2}}},
		{"resources merge per resource",
			profileWith(datav1alpha1.ThinFuseSpec{Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}, noWorker),
			runtimeWith(datav1alpha1.ThinFuseSpec{Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}, Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}}}, noWorker),
			func(r thin.Resolved) any {
				return []string{r.Fuse.Resources.Requests.Cpu().String(), r.Fuse.Resources.Requests.Memory().String(), r.Fuse.Resources.Limits.Memory().String()}
			},
			[]string{"2", "1Gi", "4Gi"}},
		{"nodeSelector is replaced whole",
			profileWith(datav1alpha1.ThinFuseSpec{NodeSelector: map[string]string{"pool": "a", "zone": "z"}}, noWorker),
			runtimeWith(datav1alpha1.ThinFuseSpec{NodeSelector: map[string]string{"pool": "b"}}, noWorker),
			func(r thin.Resolved) any { return r.Fuse.NodeSelector },
			map[string]string{"pool": "b"}},
		{"options and podMetadata merge by key",
			profileWith(datav1alpha1.ThinFuseSpec{Options: map[string]string{"a": "p", "b": "p"},
				PodMetadata: datav1alpha1.PodMetadata{Labels: map[string]string{"x": "p"}, Annotations: map[string]string{"y": "p"}}}, noWorker),
			runtimeWith(datav1alpha1.ThinFuseSpec{Options: map[string]string{"b": "r"},
				PodMetadata: datav1alpha1.PodMetadata{Labels: map[string]string{"x": "r", "z": "r"}}}, noWorker),
			func(r thin.Resolved) any {
				return []map[string]string{r.Fuse.Options, r.Fuse.PodMetadata.Labels, r.Fuse.PodMetadata.Annotations}
			},
			[]map[string]string{{"a": "p", "b": "r"}, {"x": "r", "z": "r"}, {"y": "p"}}},
		{"probes, lifecycle, networkMode and cleanPolicy: the runtime's when set",
			profileWith(datav1alpha1.ThinFuseSpec{LivenessProbe: probe("/p"), ReadinessProbe: probe("/p"), NetworkMode: datav1alpha1.ContainerNetworkMode,
				CleanPolicy: datav1alpha1.OnDemandCleanPolicy, Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 1}}}}, noWorker),
			runtimeWith(datav1alpha1.ThinFuseSpec{ReadinessProbe: probe("/r"), NetworkMode: datav1alpha1.HostNetworkMode}, noWorker),
			func(r thin.Resolved) any {
				return []any{r.Fuse.LivenessProbe.HTTPGet.Path, r.Fuse.ReadinessProbe.HTTPGet.Path, r.Fuse.NetworkMode, r.Fuse.CleanPolicy, r.Fuse.Lifecycle.PreStop.Sleep.Seconds}
			},
			[]any{"/p", "/r", datav1alpha1.HostNetworkMode, datav1alpha1.OnDemandCleanPolicy, int64(1)}},
		{"volumeMounts merge by mountPath, volumes by name",
			profileWith(datav1alpha1.ThinFuseSpec{VolumeMounts: []corev1.VolumeMount{{Name: "a", MountPath: "/a"}, {Name: "b", MountPath: "/b"}}}, noWorker,
				emptyDirVolume("a"), emptyDirVolume("b")),
			runtimeWith(datav1alpha1.ThinFuseSpec{VolumeMounts: []corev1.VolumeMount{{Name: "c", MountPath: "/b"}}}, noWorker,
				corev1.Volume{Name: "a", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/h"}}}, emptyDirVolume("c")),
			func(r thin.Resolved) any {
				names := []string{}
				for _, v := range r.Volumes {
					kind := "emptyDir"
					if v.HostPath != nil {
						kind = "hostPath"
					}
					names = append(names, v.Name+"="+kind)
				}
				return []any{r.Fuse.VolumeMounts, names}
			},
			[]any{[]corev1.VolumeMount{{Name: "a", MountPath: "/a"}, {Name: "c", MountPath: "/b"}}, []string{"a=hostPath", "b=emptyDir", "c=emptyDir"}}},
		{"worker: enabled by either, replicas and image from the runtime when set",
			profileWith(none, datav1alpha1.ThinCompTemplateSpec{Enabled: true, Replicas: 3, VersionSpec: datav1alpha1.VersionSpec{Image: "p/w", ImageTag: "1"},
				Env: []corev1.EnvVar{{Name: "A", Value: "p"}}, NodeSelector: map[string]string{"p": "1"}}),
			runtimeWith(none, datav1alpha1.ThinCompTemplateSpec{VersionSpec: datav1alpha1.VersionSpec{ImageTag: "2"},
				Env: []corev1.EnvVar{{Name: "A", Value: "r"}}}),
			func(r thin.Resolved) any {
				return []any{r.Worker.Enabled, r.Worker.Replicas, r.Worker.Image + ":" + r.Worker.ImageTag, r.Worker.Env[0].Value, r.Worker.NodeSelector}
			},
			[]any{true, int32(3), "p/w:2", "r", map[string]string{"p": "1"}}},
		{"worker enabled by the runtime alone",
			profileWith(none, noWorker),
			runtimeWith(none, datav1alpha1.ThinCompTemplateSpec{Enabled: true, Replicas: 2}),
			func(r thin.Resolved) any { return []any{r.Worker.Enabled, r.Worker.Replicas} },
			[]any{true, int32(2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.check(thin.Merge(tc.profile, tc.rt))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeTopLevel(t *testing.T) {
	p := profileWith(datav1alpha1.ThinFuseSpec{ImagePullSecrets: []corev1.LocalObjectReference{{Name: "p-fuse"}}}, datav1alpha1.ThinCompTemplateSpec{})
	p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "p-all"}}
	p.Spec.NodePublishSecretPolicy = datav1alpha1.NotMountNodePublishSecret
	rt := runtimeWith(datav1alpha1.ThinFuseSpec{}, datav1alpha1.ThinCompTemplateSpec{})
	r := thin.Merge(p, rt)
	if r.FileSystemType != "fuse.x" || r.ImagePullSecrets[0].Name != "p-all" || r.Fuse.ImagePullSecrets[0].Name != "p-fuse" ||
		r.NodePublishSecretPolicy != datav1alpha1.NotMountNodePublishSecret {
		t.Errorf("profile-only settings lost: %+v", r)
	}
	rt.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "r-all"}}
	if r := thin.Merge(p, rt); r.ImagePullSecrets[0].Name != "r-all" {
		t.Errorf("runtime imagePullSecrets = %v, want r-all", r.ImagePullSecrets)
	}
	if r := thin.Merge(nil, rt); r.FileSystemType != "" || r.ImagePullSecrets[0].Name != "r-all" {
		t.Errorf("a nil profile is an empty one: %+v", r)
	}
}

// TestMergeLeavesInputsAlone: merged maps and lists are copies.
func TestMergeLeavesInputsAlone(t *testing.T) {
	p := profileWith(datav1alpha1.ThinFuseSpec{Env: []corev1.EnvVar{{Name: "A", Value: "p"}}, NodeSelector: map[string]string{"a": "p"},
		Options: map[string]string{"o": "p"}}, datav1alpha1.ThinCompTemplateSpec{})
	rt := runtimeWith(datav1alpha1.ThinFuseSpec{Env: []corev1.EnvVar{{Name: "A", Value: "r"}}}, datav1alpha1.ThinCompTemplateSpec{})
	r := thin.Merge(p, rt)
	r.Fuse.Env[0].Value, r.Fuse.NodeSelector["a"], r.Fuse.Options["o"] = "x", "x", "x"
	if p.Spec.Fuse.Env[0].Value != "p" || rt.Spec.Fuse.Env[0].Value != "r" || p.Spec.Fuse.NodeSelector["a"] != "p" || p.Spec.Fuse.Options["o"] != "p" {
		t.Error("Merge shares memory with its inputs")
	}
}
