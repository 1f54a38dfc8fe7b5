package enginetest

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
)

// The templates of an operation chart (charts/dataop).
const (
	JobTemplate     = "templates/job.yaml"
	CronJobTemplate = "templates/cronjob.yaml"
	FilesTemplate   = "templates/files-configmap.yaml"
	// The workers of a parallel operation.
	WorkersTemplate        = "templates/workers-statefulset.yaml"
	WorkersServiceTemplate = "templates/workers-service.yaml"
)

// Operation is what an operation's chart rendered, decoded strictly:
// exactly one of Job and CronJob, the files ConfigMap when there is one,
// and a parallel operation's workers and their Service.
type Operation struct {
	// Out are the manifests by template file.
	Out            map[string]string
	Job            *batchv1.Job
	CronJob        *batchv1.CronJob
	Files          *corev1.ConfigMap
	Workers        *appsv1.StatefulSet
	WorkersService *corev1.Service
}

// RenderOperation renders rel with the Helm SDK as the release name in
// namespace. The test stops unless the chart rendered exactly one workload
// (a Job or a CronJob) named name, besides it at most a files ConfigMap
// and workers with their Service (both or neither), and each decodes
// strictly into its type.
func RenderOperation(t testing.TB, rel engines.OperationRelease, name, namespace string) Operation {
	t.Helper()
	out := RenderChart(t, rel.Chart, rel.Values, name, namespace)
	for _, tpl := range helm.SortedKeys(out) {
		if !slices.Contains([]string{JobTemplate, CronJobTemplate, FilesTemplate, WorkersTemplate, WorkersServiceTemplate}, tpl) {
			t.Fatalf("the operation chart rendered %s:\n%s", tpl, out[tpl])
		}
	}
	op := Operation{Out: out, Job: DecodeOptional[batchv1.Job](t, out, JobTemplate),
		CronJob: DecodeOptional[batchv1.CronJob](t, out, CronJobTemplate), Files: DecodeOptional[corev1.ConfigMap](t, out, FilesTemplate),
		Workers: DecodeOptional[appsv1.StatefulSet](t, out, WorkersTemplate), WorkersService: DecodeOptional[corev1.Service](t, out, WorkersServiceTemplate)}
	switch {
	case (op.Workers == nil) != (op.WorkersService == nil):
		t.Fatalf("workers without their Service, or a Service without workers: rendered %v", helm.SortedKeys(out))
	case (op.Job == nil) == (op.CronJob == nil):
		t.Fatalf("want exactly one of a Job and a CronJob, rendered %v", helm.SortedKeys(out))
	case op.Job != nil && (op.Job.Kind != "Job" || op.Job.APIVersion != "batch/v1" || op.Job.Name != name):
		t.Fatalf("the Job is %s %s %q, want batch/v1 Job %q", op.Job.APIVersion, op.Job.Kind, op.Job.Name, name)
	case op.CronJob != nil && (op.CronJob.Kind != "CronJob" || op.CronJob.APIVersion != "batch/v1" || op.CronJob.Name != name):
		t.Fatalf("the CronJob is %s %s %q, want batch/v1 CronJob %q", op.CronJob.APIVersion, op.CronJob.Kind, op.CronJob.Name, name)
	}
	return op
}

// Templates are the rendered template files, sorted (for Golden).
func (o Operation) Templates() []string { return helm.SortedKeys(o.Out) }

// Pod is the workload's pod template.
func (o Operation) Pod() *corev1.PodTemplateSpec {
	if o.Job != nil {
		return &o.Job.Spec.Template
	}
	return &o.CronJob.Spec.JobTemplate.Spec.Template
}

// Containers are the pod's init containers, then its containers.
func (o Operation) Containers() []corev1.Container {
	spec := o.Pod().Spec
	return append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...)
}
