package process

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// jobPod is the user's pod spec as it is, with the processor's service
// account.
func jobPod(p datav1alpha1.Processor) (dataop.Pod, error) {
	if p.Job.PodSpec == nil {
		return dataop.Pod{}, engines.Invalid("spec.processor.job.podSpec is required")
	}
	spec := *p.Job.PodSpec.DeepCopy()
	if len(spec.Containers) == 0 {
		return dataop.Pod{}, engines.Invalid("spec.processor.job.podSpec.containers is empty")
	}
	if err := setServiceAccount(&spec.ServiceAccountName, p.ServiceAccountName, "spec.processor.job.podSpec.serviceAccountName"); err != nil {
		return dataop.Pod{}, err
	}
	return dataop.Pod{Spec: spec}, nil
}

// setServiceAccount sets the pod's service account to the processor's,
// refusing a pod spec that names another.
func setServiceAccount(pod *string, processor, podField string) error {
	if processor == "" {
		return nil
	}
	if *pod != "" && *pod != processor {
		return engines.Invalid("spec.processor.serviceAccountName is %q but %s is %q; set one", processor, podField, *pod)
	}
	*pod = processor
	return nil
}
