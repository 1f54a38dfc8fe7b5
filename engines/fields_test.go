package engines_test

import (
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

var table = engines.Fields{
	engines.HonouredField("spec.replicas", "workers"),
	engines.RefusedField("spec.hadoopConfig", "no Hadoop configuration"),
	engines.WarnedField("spec.worker.enabled", "always runs"),
	engines.RefusedField("spec.tieredstore.levels[1]", "one tier only"),
	engines.RefusedField("spec.tieredstore.levels[].volumeSource", "no volume sources"),
	{Path: "spec.properties", Support: engines.Honoured, Check: func(v any) string {
		if _, ok := v.(map[string]string)["secret"]; ok {
			return "no secrets in plain properties"
		}
		return ""
	}},
}

func paths(fs []engines.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Support)+" "+f.String())
	}
	return out
}

func TestCheckReportsSetRefusedAndWarnedFields(t *testing.T) {
	q := resource.MustParse("1Gi")
	rt := &datav1alpha1.JindoRuntime{Spec: datav1alpha1.JindoRuntimeSpec{
		Replicas: 2, HadoopConfig: "conf", Properties: map[string]string{"secret": "x"},
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{Path: "/a", Quota: &q}, {Path: "/b", Quota: &q}}},
	}}
	got := table.Check(rt)
	want := []string{
		"refused spec.hadoopConfig: no Hadoop configuration",
		"refused spec.tieredstore.levels[1]: one tier only",
		"refused spec.properties: no secrets in plain properties",
	}
	if !slices.Equal(paths(got), want) {
		t.Errorf("findings %q, want %q", paths(got), want)
	}
}

func TestCheckIgnoresZeroValues(t *testing.T) {
	rt := &datav1alpha1.JindoRuntime{Spec: datav1alpha1.JindoRuntimeSpec{Properties: map[string]string{"a": "b"}}}
	if got := table.Check(rt); len(got) != 0 {
		t.Errorf("findings %q, want none", paths(got))
	}
	if err := table.Refuse(rt); err != nil {
		t.Errorf("Refuse: %v", err)
	}
}

func TestCheckNamesEachListElement(t *testing.T) {
	rt := &datav1alpha1.AlluxioRuntime{}
	rt.Spec.TieredStore.Levels = []datav1alpha1.Level{{Path: "/a"}, {Path: "/b"}}
	rt.Spec.TieredStore.Levels[1].VolumeSource.EmptyDir = &corev1.EmptyDirVolumeSource{}
	got := table.Check(rt)
	want := []string{"refused spec.tieredstore.levels[1]: one tier only", "refused spec.tieredstore.levels[1].volumeSource: no volume sources"}
	if !slices.Equal(paths(got), want) {
		t.Errorf("findings %q, want %q", paths(got), want)
	}
	err := table.Refuse(rt)
	var e *engines.Error
	if !errors.As(err, &e) || e.Reason != engines.ReasonInvalidSpec || err.Error() != "spec.tieredstore.levels[1]: one tier only; spec.tieredstore.levels[1].volumeSource: no volume sources" {
		t.Errorf("Refuse: %v", err)
	}
}

func TestCheckSkipsTheDefault(t *testing.T) {
	warn := engines.Fields{{Path: "spec.nodePublishSecretPolicy", Support: engines.Warned, Default: "MountNodePublishSecretIfExists", Note: "no effect"}}
	p := &datav1alpha1.ThinRuntimeProfile{Spec: datav1alpha1.ThinRuntimeProfileSpec{NodePublishSecretPolicy: "MountNodePublishSecretIfExists"}}
	if got := warn.Check(p); len(got) != 0 {
		t.Errorf("the default: findings %q, want none", paths(got))
	}
	p.Spec.NodePublishSecretPolicy = "NotMountNodePublishSecret"
	if got := warn.Check(p); !slices.Equal(paths(got), []string{"warned spec.nodePublishSecretPolicy: no effect"}) {
		t.Errorf("another value: findings %q", paths(got))
	}
}

func TestEmptyDirOnly(t *testing.T) {
	if msg := engines.EmptyDirOnly(corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}); msg != "" {
		t.Errorf("an emptyDir: %q", msg)
	}
	if msg := engines.EmptyDirOnly(corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}); msg == "" {
		t.Error("a hostPath source is not refused")
	}
}
