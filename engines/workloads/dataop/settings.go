package dataop

import (
	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// settings are the fields every operation kind may have, read from the
// kind's spec, with the names of the fields they came from (for errors).
type settings struct {
	policy    datav1alpha1.Policy
	schedule  string
	meta      datav1alpha1.PodMetadata
	metaField string
	placement placement
	// restartField and volumesField name where the pod's restart policy
	// and volumes come from.
	restartField, volumesField string
}

// settingsOf reads op's settings. DataBackup runs once and has no
// placement of its own; DataProcess takes its pod metadata from
// spec.processor and its placement from the processor's pod spec.
func settingsOf(op datav1alpha1.OperationObject) (settings, error) {
	s := settings{policy: op.GetPolicy(), schedule: op.GetSchedule()}
	s.meta, s.metaField = op.GetPodMetadata()
	if p := op.GetPlacement(); p != nil {
		s.placement = placement{field: p.Field, affinity: p.Affinity, tolerations: p.Tolerations, nodeSelector: p.NodeSelector, schedulerName: p.SchedulerName}
	}
	if dp, ok := op.(*datav1alpha1.DataProcess); ok {
		s.restartField, s.volumesField = "spec.processor.script.restartPolicy", "spec.processor.script.volumes"
		if dp.Spec.Processor.Job != nil {
			s.restartField, s.volumesField = "spec.processor.job.podSpec.restartPolicy", "spec.processor.job.podSpec.volumes"
		}
	}
	if s.restartField == "" {
		s.restartField, s.volumesField = "the pod's restartPolicy", "the pod's volumes"
	}
	switch s.policy {
	case datav1alpha1.Once:
		if s.schedule != "" {
			return settings{}, engines.Invalid("spec.schedule %q is set, but spec.policy is Once; set policy Cron to run on a schedule", s.schedule)
		}
	case datav1alpha1.Cron:
		if s.schedule == "" {
			return settings{}, engines.Invalid("spec.schedule is required when spec.policy is Cron")
		}
	case datav1alpha1.OnEvent:
		return settings{}, engines.Invalid("spec.policy: OnEvent is not supported yet; use Once or Cron")
	default:
		return settings{}, engines.Invalid("spec.policy %q: use Once or Cron", s.policy)
	}
	return s, nil
}

// placement is where an operation's pod may run.
type placement struct {
	// field prefixes the spec fields' names in errors.
	field         string
	affinity      *corev1.Affinity
	tolerations   []corev1.Toleration
	nodeSelector  map[string]string
	schedulerName string
}

// apply adds the placement to spec, and the runAfter affinity after it.
// The engine's own node selector or scheduler wins nothing: a conflicting
// value is an error naming the field.
func (p placement) apply(spec *corev1.PodSpec, runAfter *corev1.Affinity) error {
	spec.Affinity = MergeAffinity(MergeAffinity(spec.Affinity, p.affinity), runAfter)
	spec.Tolerations = append(spec.Tolerations, p.tolerations...)
	for k, v := range p.nodeSelector {
		if old, ok := spec.NodeSelector[k]; ok && old != v {
			return engines.Invalid("%s.nodeSelector[%s] is %q, but the operation's pod must run where %s is %q", p.field, k, v, k, old)
		}
		if spec.NodeSelector == nil {
			spec.NodeSelector = map[string]string{}
		}
		spec.NodeSelector[k] = v
	}
	if p.schedulerName != "" {
		if spec.SchedulerName != "" && spec.SchedulerName != p.schedulerName {
			return engines.Invalid("%s.schedulerName is %q, but the pod already names scheduler %q", p.field, p.schedulerName, spec.SchedulerName)
		}
		spec.SchedulerName = p.schedulerName
	}
	return nil
}
