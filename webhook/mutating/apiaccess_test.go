package mutating

import (
	"encoding/json"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/sluice-data/sluice/webhook/snapshot"
)

// tokenPod is a dataset Pod as the API server's ServiceAccount admission
// plugin leaves it, with the token volume named name, after a trip through
// JSON (as the webhook receives it); change alters the token volume first.
func tokenPod(t *testing.T, name string, change func(*corev1.Volume)) *corev1.Pod {
	t.Helper()
	mount := corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: apiAccessMountPath}
	token := corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: apiAccessProjection.DeepCopy()}}
	if change != nil {
		change(&token)
	}
	p := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Image: "i", VolumeMounts: []corev1.VolumeMount{mount}}},
		Containers:     []corev1.Container{{Name: "app", Image: "i", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, mount}}},
		Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "imagenet"}}},
			token},
	}}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	out := &corev1.Pod{}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The token volume of the plugin's making and its mounts are not in the
// input, so that replicas whose volumes differ only in its random name are
// the same input (decided from the memo); a volume or mount that differs
// from the plugin's in anything stays in the input.
func TestInputLeavesOutTheAPIAccessVolume(t *testing.T) {
	input := func(p *corev1.Pod) Input {
		return NewInput(Request{Pod: p, Operation: "CREATE", Namespace: "ns"}, nil, snapshot.Namespace{Name: "ns"}, true)
	}
	a, b := input(tokenPod(t, "kube-api-access-x7k2q", nil)), input(tokenPod(t, "kube-api-access-9bzvn", nil))
	if len(a.Pod.Spec.Volumes) != 1 || a.Pod.Spec.Volumes[0].Name != "data" ||
		len(a.Pod.Spec.Containers[0].VolumeMounts) != 1 || a.Pod.Spec.Containers[0].VolumeMounts[0].Name != "data" ||
		len(a.Pod.Spec.InitContainers[0].VolumeMounts) != 0 {
		t.Fatalf("the token volume or its mounts are in the input: %+v", a.Pod.Spec)
	}
	if !sameInput(&a, &b) || inputHash(&a) != inputHash(&b) {
		t.Fatal("replicas differing only in their token volume's name are different inputs")
	}
	for name, change := range map[string]func(*corev1.Volume){
		"another name": func(v *corev1.Volume) { v.Name = "kube-api-access-abcdef" },
		"another expiry": func(v *corev1.Volume) {
			v.Projected.Sources[0].ServiceAccountToken.ExpirationSeconds = ptr.To[int64](600)
		},
		"an audience":       func(v *corev1.Volume) { v.Projected.Sources[0].ServiceAccountToken.Audience = "vault" },
		"another ConfigMap": func(v *corev1.Volume) { v.Projected.Sources[1].ConfigMap.Name = "ca" },
		"another source": func(v *corev1.Volume) {
			v.Projected.Sources = append(v.Projected.Sources, corev1.VolumeProjection{Secret: &corev1.SecretProjection{}})
		},
		"another mode":           func(v *corev1.Volume) { v.Projected.DefaultMode = ptr.To[int32](0o600) },
		"a hostPath of the name": func(v *corev1.Volume) { v.HostPath = &corev1.HostPathVolumeSource{Path: "/"} },
	} {
		p := tokenPod(t, "kube-api-access-x7k2q", change)
		in := input(p)
		if !slices.EqualFunc(in.Pod.Spec.Volumes, p.Spec.Volumes, func(x, y corev1.Volume) bool { return x.Name == y.Name }) {
			t.Errorf("%s: a volume unlike the plugin's is left out of the input", name)
		}
		if len(in.Pod.Spec.Containers[0].VolumeMounts) != 2 {
			t.Errorf("%s: the mount of a volume unlike the plugin's is left out of the input", name)
		}
	}
	p := tokenPod(t, "kube-api-access-x7k2q", nil)
	p.Spec.Containers[0].VolumeMounts[1].SubPath = "token"
	if in := input(p); len(in.Pod.Spec.Containers[0].VolumeMounts) != 2 {
		t.Error("a mount of the token volume unlike the plugin's (a subPath) is left out of the input")
	}
}
