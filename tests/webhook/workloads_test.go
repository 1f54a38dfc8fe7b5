package webhook_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestWorkloadTemplatesAreWarnedAtApply: a Deployment or CronJob whose Pod
// template the Pod deny rules refuse (here: it mounts a Dataset that is not
// Bound) is admitted, and the API server hands the client the denial as a
// warning naming the template's field and the rule, as kubectl apply
// shows it; a template the rules admit gets no warning, and an update that
// leaves the template unchanged (a scale) is not judged again.
func TestWorkloadTemplatesAreWarnedAtApply(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "pending", datav1alpha1.NotBoundDatasetPhase)
	seedDataset(t, ns, "ready", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	c, warned := warnedClient(t)
	labels := map[string]string{"app": "reader"}
	template := func(claim string) corev1.PodTemplateSpec {
		pod := datasetPod("", labels, claim)
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod.Spec}
	}
	deployment := func(name, claim string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template(claim)}}
	}

	if err := c.Create(ctxT(t), deployment("fine", "ready")); err != nil {
		t.Fatal(err)
	}
	if w := warned.String(); strings.Contains(w, "would be refused") {
		t.Fatalf("a Deployment of a Bound dataset was warned: %s", w)
	}

	refused := deployment("early", "pending")
	if err := c.Create(ctxT(t), refused); err != nil {
		t.Fatalf("a Deployment whose Pods would be refused is admitted (warn mode): %v", err)
	}
	want := `spec.template: its Pods would be refused: volume "data" uses dataset ` + ns + `/pending, which is not Bound`
	if w := warned.String(); !strings.Contains(w, want) || !strings.Contains(w, "(rule dataset-not-bound)") {
		t.Fatalf("warnings %q do not say %q with the rule", w, want)
	}

	warned.Reset()
	scaled := refused.DeepCopy()
	scaled.Spec.Replicas = ptr.To[int32](3)
	if err := c.Patch(ctxT(t), scaled, client.MergeFrom(refused)); err != nil {
		t.Fatal(err)
	}
	if w := warned.String(); strings.Contains(w, "would be refused") {
		t.Fatalf("a scale, which leaves the template unchanged, was judged again: %s", w)
	}

	cron := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: ns}, Spec: batchv1.CronJobSpec{
		Schedule: "0 3 * * *",
		JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: func() corev1.PodTemplateSpec {
			tt := template("pending")
			tt.Spec.RestartPolicy = corev1.RestartPolicyNever
			return tt
		}()}},
	}}
	if err := c.Create(ctxT(t), cron); err != nil {
		t.Fatal(err)
	}
	if w := warned.String(); !strings.Contains(w, "spec.jobTemplate.spec.template: its Pods would be refused") {
		t.Fatalf("the CronJob's warnings %q do not name its template", w)
	}
}
