package dataop

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
)

// Pod is an operation's pod as an engine (or engines/workloads/process) builds
// it: the containers, volumes and pod-level settings of its kind; Release adds
// what every operation kind shares.
type Pod struct {
	Spec corev1.PodSpec
	// Files, when not empty, become the ConfigMap <release>-files, which the
	// chart adds to the pod as the volume FilesVolume (files mode 0555);
	// containers mount it by that name.
	Files map[string]string
	// Workers, when set, are the parallel workers the pod drives.
	Workers *Workers
}

// FilesVolume is the name of the pod volume holding Pod.Files.
const FilesVolume = "sluice-files"

// BackoffLimit is how often an operation's Job retries its pod.
const BackoffLimit = 3

// values are charts/dataop's values (its values.yaml documents them).
type values struct {
	Labels       map[string]string `json:"labels"`
	Policy       string            `json:"policy"`
	Schedule     string            `json:"schedule,omitempty"`
	BackoffLimit int32             `json:"backoffLimit"`
	Files        files             `json:"files"`
	Pod          podValues         `json:"pod"`
	Workers      workersValues     `json:"workers"`
}

type files struct {
	Volume string            `json:"volume"`
	Data   map[string]string `json:"data"`
}

type podValues struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	Spec        corev1.PodSpec    `json:"spec"`
}

// Release is the chart and values that run req.Op with pod: the
// operation's policy and schedule, its pod metadata, its placement
// (affinity, tolerations, nodeSelector, schedulerName) merged with
// req.Affinity, and a Never restart policy unless pod sets OnFailure. A
// field that cannot be honoured is an InvalidSpec error naming it.
func Release(req engines.OperationRequest, pod Pod) (engines.OperationRelease, error) {
	if err := Check(req); err != nil {
		return engines.OperationRelease{}, err
	}
	s, err := settingsOf(req.Op)
	if err != nil {
		return engines.OperationRelease{}, err
	}
	if err := checkMetadata(s.metaField, s.meta); err != nil {
		return engines.OperationRelease{}, err
	}
	spec := *pod.Spec.DeepCopy()
	if err := s.placement.apply(&spec, req.Affinity); err != nil {
		return engines.OperationRelease{}, err
	}
	switch spec.RestartPolicy {
	case "":
		spec.RestartPolicy = corev1.RestartPolicyNever
	case corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure:
	default:
		return engines.OperationRelease{}, engines.Invalid("%s: a Job's pod restarts Never or OnFailure, not %s", s.restartField, spec.RestartPolicy)
	}
	if len(pod.Files) > 0 {
		for i, v := range spec.Volumes {
			if v.Name == FilesVolume {
				return engines.OperationRelease{}, engines.Invalid("%s: volume %d is named %s, which Sluice uses for the operation's files", s.volumesField, i, FilesVolume)
			}
		}
	}
	workers, err := s.workers(req, pod)
	if err != nil {
		return engines.OperationRelease{}, err
	}
	v := values{
		Labels: engines.OperationLabels(req.Op), Policy: string(s.policy), Schedule: s.schedule, BackoffLimit: BackoffLimit,
		Files:   files{Data: orEmpty(pod.Files)},
		Pod:     podValues{Labels: orEmpty(s.meta.Labels), Annotations: orEmpty(s.meta.Annotations), Spec: spec},
		Workers: workers,
	}
	if len(pod.Files) > 0 {
		v.Files.Volume = FilesVolume
	}
	plain, err := engines.ToPlain(v)
	if err != nil {
		return engines.OperationRelease{}, fmt.Errorf("operation values: %w", err)
	}
	return engines.OperationRelease{Chart: charts.DataOp, Values: plain}, nil
}

// Check checks that the request carries an operation and the Dataset the
// operation names, in the operation's namespace. Engines call it before
// they read the request; Release calls it again.
func Check(req engines.OperationRequest) error {
	if req.Op == nil || req.Dataset == nil {
		return engines.Invalid("an operation request needs the operation and its Dataset")
	}
	field := "spec.dataset"
	if _, migrate := req.Op.(*datav1alpha1.DataMigrate); migrate {
		field = "spec.from.dataset or spec.to.dataset"
	}
	ns, name, ok := req.Op.GetTargetDataset()
	if !ok {
		return engines.Invalid("%s: the operation names no Dataset", field)
	}
	if ns != req.Dataset.Namespace || name != req.Dataset.Name {
		return engines.Invalid("%s names %s/%s, but the request carries Dataset %s/%s", field, ns, name, req.Dataset.Namespace, req.Dataset.Name)
	}
	if ns != req.Op.GetNamespace() {
		return engines.Invalid("%s: Dataset %s/%s is not in the operation's namespace %s", field, ns, name, req.Op.GetNamespace())
	}
	return nil
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
