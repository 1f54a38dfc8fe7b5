package dataop_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// TestNoExpandSurvivesTheKubelet: whatever the string, the process receives
// it unchanged, even where the container defines the variable it names.
func TestNoExpandSurvivesTheKubelet(t *testing.T) {
	env := map[string]string{"HOME": "/root", "X": "expanded"}
	for _, s := range []string{"", "plain", "$(HOME)", "$$(X)", "$X", "${HOME}", "a$", "$", "$$", "$(", "$(unterminated", "$(X)$(Y)$$$(X)", "x\n---\n$(X)"} {
		if got := enginetest.Expand(dataop.NoExpand(s), env); got != s {
			t.Errorf("NoExpand(%q) reaches the process as %q", s, got)
		}
	}
	if got := enginetest.Expand("$(X)", env); got != "expanded" {
		t.Errorf("the test's kubelet expansion does not expand $(X): %q", got)
	}
}

func TestFlags(t *testing.T) {
	got, err := dataop.Flags("spec.options", map[string]string{"threads": "8", "check": "", "timeout": "1h", "match": "$(ID)"}, "timeout")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--check", "--match=$$(ID)", "--threads=8"}; !cmp.Equal(got, want) {
		t.Errorf("flags %q, want %q (sorted, timeout skipped, $ kept from the kubelet)", got, want)
	}
	for _, name := range []string{"", "-v", "a=b"} {
		_, err := dataop.Flags("spec.options", map[string]string{name: "x"})
		enginetest.WantInvalid(t, err, "spec.options")
	}
}

func TestSequence(t *testing.T) {
	template := corev1.Container{Image: "engine:1", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
		VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/engine"}}, Args: []string{"ignored"}}
	initContainers, containers := dataop.Sequence(template, []dataop.Step{{Name: "a", Argv: []string{"first"}}, {Name: "b", Argv: []string{"second", "x"}}, {Name: "c", Argv: []string{"last"}}})
	if len(initContainers) != 2 || len(containers) != 1 {
		t.Fatalf("%d init containers and %d containers, want 2 and 1", len(initContainers), len(containers))
	}
	for i, c := range append(initContainers, containers...) {
		want := template.DeepCopy()
		want.Name, want.Command, want.Args = []string{"a", "b", "c"}[i], [][]string{{"first"}, {"second", "x"}, {"last"}}[i], nil
		if diff := cmp.Diff(*want, c); diff != "" {
			t.Errorf("step %d (-want +got):\n%s", i, diff)
		}
	}
	initContainers[0].VolumeMounts[0].Name = "changed"
	if containers[0].VolumeMounts[0].Name != "config" || template.VolumeMounts[0].Name != "config" {
		t.Error("steps share the template's slices")
	}
}

func TestImage(t *testing.T) {
	base := dataop.Image{Repository: "juicedata/juicefs-fuse", Tag: "ce-v1.2.1", PullPolicy: corev1.PullIfNotPresent}
	for _, tc := range []struct {
		img  dataop.Image
		want string
	}{
		{base, "juicedata/juicefs-fuse:ce-v1.2.1"},
		{dataop.Image{Repository: "busybox"}, "busybox"},
		{dataop.Image{Repository: "busybox@sha256:0123", Tag: "1"}, "busybox@sha256:0123"},
	} {
		if got := tc.img.Ref(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.img, got, tc.want)
		}
	}
}
