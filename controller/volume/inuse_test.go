package volume

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestUses(t *testing.T) {
	claim := func(name string) corev1.Volume {
		return corev1.Volume{Name: "v-" + name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}
	}
	pod := func(phase corev1.PodPhase, inUse string, vols ...corev1.Volume) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "n"}, Spec: corev1.PodSpec{Volumes: vols}, Status: corev1.PodStatus{Phase: phase}}
		if inUse != "" {
			p.Annotations = map[string]string{datav1alpha1.AnnotationDatasetsInUse: inUse}
		}
		return p
	}
	for _, c := range []struct {
		name string
		pod  *corev1.Pod
		want bool // the Pod uses Dataset "d"
	}{
		{"mounts the PVC, running", pod(corev1.PodRunning, "", claim("d")), true},
		{"mounts the PVC, pending", pod(corev1.PodPending, "", claim("x"), claim("d")), true},
		{"mounts the PVC, phase not reported yet", pod("", "", claim("d")), true},
		{"mounts the PVC, succeeded", pod(corev1.PodSucceeded, "", claim("d")), false},
		{"mounts the PVC, failed", pod(corev1.PodFailed, "", claim("d")), false},
		{"mounts another PVC", pod(corev1.PodRunning, "", claim("dd")), false},
		{"sidecar: annotation names it", pod(corev1.PodRunning, "a,d"), true},
		{"sidecar: annotation names it with its namespace", pod(corev1.PodRunning, "n/d"), true},
		{"sidecar: annotation names another namespace's", pod(corev1.PodRunning, "other/d"), false},
		{"sidecar: finished", pod(corev1.PodSucceeded, "d"), false},
		{"no volumes", pod(corev1.PodRunning, ""), false},
	} {
		if got := Uses(c.pod, "d"); got != c.want {
			t.Errorf("%s: Uses = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestUsedNamesOnceEach(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Annotations: map[string]string{datav1alpha1.AnnotationDatasetsInUse: "d,e, n/f,other/g"}},
		Spec: corev1.PodSpec{Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "d"}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		}}}
	if got, want := UsedNames(p), []string{"d", "e", "f"}; !slices.Equal(got, want) {
		t.Errorf("UsedNames = %v, want %v", got, want)
	}
}

func TestSummarise(t *testing.T) {
	var many []string
	for i := 7; i >= 1; i-- {
		many = append(many, fmt.Sprintf("p%d", i))
	}
	if got, want := summarise(many), []string{"p1", "p2", "p3", "p4", "p5", "and 2 more"}; !slices.Equal(got, want) {
		t.Errorf("summarise = %v, want %v", got, want)
	}
	if got, want := summarise([]string{"b", "a"}), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("summarise = %v, want %v", got, want)
	}
}
