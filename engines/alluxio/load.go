package alluxio

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// loadPod loads each target (the whole Dataset without targets) with its
// replicas (1 when unset), one step after another: first, with
// loadMetadata, `alluxio fs loadMetadata -R -F` of every target (metadata
// synced from the under storage, existing files included), then `alluxio
// fs distributedLoad --replication <n> [options] <path>`. Options become
// distributedLoad's flags (--name=value).
func loadPod(rt *datav1alpha1.AlluxioRuntime, dl *datav1alpha1.DataLoad, img image) (dataop.Pod, error) {
	targets := dl.Spec.Target
	if len(targets) == 0 {
		targets = []datav1alpha1.TargetPath{{Path: "/", Replicas: 1}}
	}
	flags, err := dataop.Flags("spec.options", dl.Spec.Options)
	if err != nil {
		return dataop.Pod{}, err
	}
	var metadata, loads []dataop.Step
	for i, t := range targets {
		if !strings.HasPrefix(t.Path, "/") {
			return dataop.Pod{}, engines.Invalid("spec.target[%d].path %q: an Alluxio path starts with /", i, t.Path)
		}
		replicas := t.Replicas
		if replicas == 0 {
			replicas = 1
		}
		if replicas < 0 {
			return dataop.Pod{}, engines.Invalid("spec.target[%d].replicas is %d; at least 1", i, replicas)
		}
		path := dataop.NoExpand(t.Path)
		metadata = append(metadata, dataop.Step{Name: fmt.Sprintf("metadata-%d", i),
			Argv: append(dataop.Args(alluxioCommand, "fs", "loadMetadata", "-R", "-F"), path)})
		argv := append(dataop.Args(alluxioCommand, "fs", "distributedLoad", "--replication", strconv.Itoa(int(replicas))), flags...)
		loads = append(loads, dataop.Step{Name: fmt.Sprintf("load-%d", i), Argv: append(argv, path)})
	}
	steps := loads
	if dl.Spec.LoadMetadata {
		steps = append(metadata, loads...)
	}
	c, config := clientContainer(rt, img)
	c.Resources = dl.Spec.Resources
	initContainers, containers := dataop.Sequence(c, steps)
	return dataop.Pod{Spec: corev1.PodSpec{
		InitContainers: initContainers, Containers: containers,
		Volumes: []corev1.Volume{config}, ImagePullSecrets: rt.Spec.ImagePullSecrets,
	}}, nil
}
