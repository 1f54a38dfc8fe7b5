package validating

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/trust/guards"
)

func TestThinGuards(t *testing.T) {
	vol := corev1.Volume{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}}}
	profile := &datav1alpha1.ThinRuntimeProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "nfs", Annotations: map[string]string{datav1alpha1.AnnotationAllowOverrides: "command, volumes"}},
		Spec: datav1alpha1.ThinRuntimeProfileSpec{
			Fuse:    datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "platform/nfs"}, Command: []string{"mount-nfs"}},
			Volumes: []corev1.Volume{vol},
		},
	}
	g := &Gatherer{Reader: fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(profile).Build()}
	rt := &datav1alpha1.ThinRuntime{Spec: datav1alpha1.ThinRuntimeSpec{
		ProfileName: "nfs",
		Fuse: datav1alpha1.ThinFuseSpec{
			VersionSpec: datav1alpha1.VersionSpec{Image: "platform/nfs", ImageTag: "v2"}, // the profile's image: no override
			Command:     []string{"mount-nfs"},                                           // the profile's command
			Args:        []string{"-o", "x"},
		},
		Worker:  datav1alpha1.ThinCompTemplateSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "evil/worker"}},
		Volumes: []corev1.Volume{vol, {Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}},
	}}
	got, err := g.thinGuards(context.Background(), rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &guards.ThinFacts{Profile: "nfs", Exists: true, Allows: []string{"command", "volumes"}, Overrides: []guards.Value{
		{Path: "spec.worker.image", Value: "image"},
		{Path: "spec.fuse.args", Value: "command"},
		{Path: "spec.volumes[1]", Value: "volumes"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("thin guards (-want +got):\n%s", diff)
	}

	rt.Spec.ProfileName = "missing"
	got, err = g.thinGuards(context.Background(), rt, rt.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if got.Exists || len(got.Overrides) != 6 || !got.Overrides[0].Unchanged {
		t.Fatalf("a missing profile: everything set overrides it, unchanged as before: %+v", got)
	}
	if got, _ := g.thinGuards(context.Background(), &datav1alpha1.ThinRuntime{}, nil); got != nil {
		t.Fatalf("a ThinRuntime without a profile (reference dataset) has no overrides: %+v", got)
	}
}
