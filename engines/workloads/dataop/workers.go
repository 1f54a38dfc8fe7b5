package dataop

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines"
)

// Workers are the pods a parallel operation's pod drives (a DataMigrate
// with spec.parallelism above 1): the chart runs them as the StatefulSet
// WorkersName(release), of Replicas pods named <WorkersName>-<i>, behind
// the headless Service of the same name, so that each is reachable as
// WorkerHost(release, i). The controller keeps the StatefulSet at
// Replicas while a run executes, at 0 otherwise.
type Workers struct {
	Replicas int32
	// Spec is the workers' pod; Release adds the operation's placement and
	// pod metadata, and restarts it Always (a StatefulSet's pods must).
	Spec corev1.PodSpec
}

// WorkersName is the StatefulSet and Service of a release's workers.
func WorkersName(release string) string { return release + "-workers" }

// WorkerHost is the DNS name, within the namespace, of a release's i-th
// worker.
func WorkerHost(release string, i int) string {
	return fmt.Sprintf("%s-%d.%s", WorkersName(release), i, WorkersName(release))
}

// WorkerHosts are the DNS names of a release's n workers.
func WorkerHosts(release string, n int32) []string {
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = WorkerHost(release, i)
	}
	return hosts
}

// FilesConfigMap is the ConfigMap holding a release's Pod.Files, for pod
// volumes that project some of them elsewhere (the chart creates it).
func FilesConfigMap(release string) string { return release + "-files" }

// workersValues are charts/dataop's workers values.
type workersValues struct {
	Replicas int32     `json:"replicas"`
	Pod      podValues `json:"pod"`
}

// workers is the values of pod's workers, with the operation's placement
// and pod metadata; replicas 0 and no pod when there are none.
func (s settings) workers(req engines.OperationRequest, pod Pod) (workersValues, error) {
	if pod.Workers == nil {
		return workersValues{Pod: podValues{Labels: map[string]string{}, Annotations: map[string]string{}}}, nil
	}
	if req.Release == "" || strings.Contains(req.Release, ".") {
		return workersValues{}, fmt.Errorf("a parallel operation needs its release name (a DNS label) to address its workers, got %q", req.Release)
	}
	spec := *pod.Workers.Spec.DeepCopy()
	if err := s.placement.apply(&spec, nil); err != nil {
		return workersValues{}, err
	}
	spec.RestartPolicy = corev1.RestartPolicyAlways
	return workersValues{Replicas: pod.Workers.Replicas,
		Pod: podValues{Labels: orEmpty(s.meta.Labels), Annotations: orEmpty(s.meta.Annotations), Spec: spec}}, nil
}
