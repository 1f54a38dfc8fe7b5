package process

import (
	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Where the script is: the pod's files volume (a ConfigMap, files mode
// 0555) mounted at ScriptDir, the script being ScriptFile in it.
const (
	ScriptDir  = "/sluice/scripts"
	ScriptFile = "process.sh"
	// ScriptContainer is the script container's name.
	ScriptContainer = "script"
)

// scriptPod runs the script as Fluid does: the container's command (the
// image's entrypoint when empty) with the script file as its argument. The
// script's text travels in a ConfigMap, never through a command line.
func scriptPod(p datav1alpha1.Processor) (dataop.Pod, error) {
	s := p.Script
	if s.Image == "" {
		return dataop.Pod{}, engines.Invalid("spec.processor.script.image is required")
	}
	if s.Source == "" {
		return dataop.Pod{}, engines.Invalid("spec.processor.script.source is empty")
	}
	for i, m := range s.VolumeMounts {
		if m.MountPath == ScriptDir {
			return dataop.Pod{}, engines.Invalid("spec.processor.script.volumeMounts[%d].mountPath %s holds the script", i, ScriptDir)
		}
	}
	c := dataop.Image{PullPolicy: corev1.PullIfNotPresent}.With(s.VersionSpec).Container()
	c.Name, c.Command, c.Args = ScriptContainer, s.Command, []string{ScriptDir + "/" + ScriptFile}
	c.Env, c.Resources = s.Env, s.Resources
	c.VolumeMounts = append(append([]corev1.VolumeMount{}, s.VolumeMounts...),
		corev1.VolumeMount{Name: dataop.FilesVolume, MountPath: ScriptDir, ReadOnly: true})
	spec := corev1.PodSpec{ServiceAccountName: p.ServiceAccountName, RestartPolicy: s.RestartPolicy, Volumes: s.Volumes, Containers: []corev1.Container{c}}
	return dataop.Pod{Spec: spec, Files: map[string]string{ScriptFile: s.Source}}, nil
}
