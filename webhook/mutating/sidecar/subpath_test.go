package sidecar

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sluice-data/sluice/webhook/decision"
)

// subPathPod mounts the dataset volume "data" in an init container and in
// app containers: whole, with a subPath, with a subPathExpr; and another
// volume with a subPath of its own.
func subPathPod() *corev1.Pod {
	p := appPod()
	p.Spec.InitContainers = []corev1.Container{{Name: "prep", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/in"}}}}
	p.Spec.Containers = append(p.Spec.Containers,
		corev1.Container{Name: "sub", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/models", SubPath: "resnet/"}}},
		corev1.Container{Name: "expr", VolumeMounts: []corev1.VolumeMount{
			{Name: "data", MountPath: "/mine", SubPathExpr: "$(POD_NAME)"},
			{Name: "mnt", MountPath: "/scratch", SubPath: "tmp"},
		}})
	return p
}

func withSubPathDecision(sub string) *decision.Mutating {
	d := decide(decision.NativeSidecar, false, false)
	d.VolumeRewrites[0].SubPath = sub
	return d
}

// TestSubPathGoesToTheMountsNotTheHostPath (audit N2): a dataset's
// sub-path is not put into the hostPath, which the container runtime
// resolves following the FUSE program's symbolic links. The hostPath is
// the FUSE mount, and every mount of the volume gets the sub-path as its
// subPath (which the kubelet resolves refusing links out of the volume),
// joined before a subPath or subPathExpr of its own. A second pass over
// the result changes nothing.
func TestSubPathGoesToTheMountsNotTheHostPath(t *testing.T) {
	p, d := subPathPod(), withSubPathDecision("train/2024")
	if err := (Mutator{}).Mutate(p, d, vols()); err != nil {
		t.Fatal(err)
	}
	if hp := p.Spec.Volumes[0].HostPath; hp == nil || hp.Path != "/runtime-mnt/ds/fuse" {
		t.Fatalf("hostPath = %+v, want the FUSE mount /runtime-mnt/ds/fuse", hp)
	}
	type mnt struct{ container, path, subPath, subPathExpr string }
	var got []mnt
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, c := range cs {
			for _, m := range c.VolumeMounts {
				if m.Name == "data" || m.Name == "mnt" && c.Name == "expr" {
					got = append(got, mnt{c.Name, m.MountPath, m.SubPath, m.SubPathExpr})
				}
			}
		}
	}
	want := []mnt{
		{"prep", "/in", "train/2024", ""},
		{"app", "/data", "train/2024", ""},
		{"sub", "/models", "train/2024/resnet", ""},
		{"expr", "/mine", "", "train/2024/$(POD_NAME)"},
		{"expr", "/scratch", "tmp", ""}, // another volume: its own
	}
	if !slices.Equal(got, want) {
		t.Fatalf("mounts:\n got %v\nwant %v", got, want)
	}
	again := p.DeepCopy()
	if err := (Mutator{}).Mutate(again, d, vols()); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(again, p) {
		t.Fatal("a second pass changed the Pod")
	}
}

// TestNoSubPathLeavesTheMounts: without a sub-path (or one of only "/"),
// the mounts keep what they had.
func TestNoSubPathLeavesTheMounts(t *testing.T) {
	for _, sub := range []string{"", "/", "."} {
		p := subPathPod()
		if err := (Mutator{}).Mutate(p, withSubPathDecision(sub), vols()); err != nil {
			t.Fatal(err)
		}
		if m := p.Spec.Containers[0].VolumeMounts[0]; m.SubPath != "" {
			t.Errorf("sub-path %q: app mount subPath = %q", sub, m.SubPath)
		}
		if m := p.Spec.Containers[1].VolumeMounts[0]; m.SubPath != "resnet/" {
			t.Errorf("sub-path %q: a mount's own subPath became %q", sub, m.SubPath)
		}
	}
}

// TestDotDotSubPathsAreRefused: a ".." in the dataset's sub-path or in a
// mount's own is an error naming it, and the Pod is left as it was.
func TestDotDotSubPathsAreRefused(t *testing.T) {
	for _, tt := range []struct {
		name, sub, own, want string
	}{
		// name, dataset sub-path, the app mount's subPath, error part
		{"dataset sub-path", "train/../../etc", "", `the dataset's sub-path "train/../../etc"`},
		{"mount's subPath", "train", "../../x", `container "app" mounts it at /data with sub-path "../../x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := appPod()
			p.Spec.Containers[0].VolumeMounts[0].SubPath = tt.own
			before := p.DeepCopy()
			err := (Mutator{}).Mutate(p, withSubPathDecision(tt.sub), vols())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `".."`) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if !equality.Semantic.DeepEqual(p.Spec.Containers, before.Spec.Containers) {
				t.Fatalf("the containers changed: %+v", p.Spec.Containers)
			}
		})
	}
}
