package workloads

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// Template is a workload's Pod template and the field that holds it.
type Template struct {
	Spec  *corev1.PodTemplateSpec
	Field string
}

// TemplateOf decodes a workload of kind from its JSON (as the API server
// does: field names are case-sensitive) and returns its Pod template; ok
// is false for a kind that has none (Kinds lists those that have one).
func TemplateOf(kind string, raw []byte) (t Template, ok bool, err error) {
	decode := func(obj any) error {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
			return fmt.Errorf("decoding the %s: %w", kind, err)
		}
		return nil
	}
	switch kind {
	case "Deployment":
		w := &appsv1.Deployment{}
		err = decode(w)
		t = Template{&w.Spec.Template, "spec.template"}
	case "StatefulSet":
		w := &appsv1.StatefulSet{}
		err = decode(w)
		t = Template{&w.Spec.Template, "spec.template"}
	case "DaemonSet":
		w := &appsv1.DaemonSet{}
		err = decode(w)
		t = Template{&w.Spec.Template, "spec.template"}
	case "Job":
		w := &batchv1.Job{}
		err = decode(w)
		t = Template{&w.Spec.Template, "spec.template"}
	case "CronJob":
		w := &batchv1.CronJob{}
		err = decode(w)
		t = Template{&w.Spec.JobTemplate.Spec.Template, "spec.jobTemplate.spec.template"}
	default:
		return Template{}, false, nil
	}
	return t, err == nil, err
}

// Pod is the Pod a workload's template would create in namespace: its
// metadata (labels and annotations) and spec, named after the workload.
func Pod(namespace, workload string, t *corev1.PodTemplateSpec) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: *t.ObjectMeta.DeepCopy(), Spec: *t.Spec.DeepCopy()}
	pod.Namespace = namespace
	if pod.Name == "" && pod.GenerateName == "" {
		pod.GenerateName = workload + "-"
	}
	return pod
}

// Kinds are the workload kinds the check reads, for the webhook
// configuration and `sluice policy eval`.
var Kinds = []string{"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"}
