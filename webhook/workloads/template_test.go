package workloads

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEveryKindHasItsTemplate: each kind of Kinds decodes, and its Pod
// template comes back with the field that holds it; other kinds have none.
func TestEveryKindHasItsTemplate(t *testing.T) {
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	objs := map[string]any{
		"Deployment":  appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: tmpl}},
		"StatefulSet": appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Template: tmpl}},
		"DaemonSet":   appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: tmpl}},
		"Job":         batchv1.Job{Spec: batchv1.JobSpec{Template: tmpl}},
		"CronJob":     batchv1.CronJob{Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tmpl}}}},
	}
	if len(objs) != len(Kinds) {
		t.Fatalf("the test covers %d kinds, Kinds has %d", len(objs), len(Kinds))
	}
	for _, kind := range Kinds {
		raw, err := json.Marshal(objs[kind])
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := TemplateOf(kind, raw)
		want := "spec.template"
		if kind == "CronJob" {
			want = "spec.jobTemplate.spec.template"
		}
		if err != nil || !ok || got.Field != want || got.Spec.Labels["app"] != "x" || got.Spec.Spec.Containers[0].Image != "busybox" {
			t.Errorf("%s: %+v %v %v", kind, got, ok, err)
		}
		pod := Pod("team-a", "reader", got.Spec)
		if pod.Namespace != "team-a" || pod.GenerateName != "reader-" || pod.Labels["app"] != "x" {
			t.Errorf("%s: the Pod %+v", kind, pod.ObjectMeta)
		}
	}
	if _, ok, err := TemplateOf("ReplicaSet", []byte(`{}`)); ok || err != nil {
		t.Errorf("a kind the check does not read: %v %v", ok, err)
	}
	// Field names are case-sensitive, as the API server reads them.
	if got, _, err := TemplateOf("Deployment", []byte(`{"spec":{"Template":{"metadata":{"labels":{"app":"x"}}}}}`)); err != nil || len(got.Spec.Labels) != 0 {
		t.Errorf("a misspelt field was read: %+v %v", got, err)
	}
}
