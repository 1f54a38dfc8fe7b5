package guards

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// tolerationValues are the taint keys tolerations tolerate, at field: ""
// for a toleration of every taint (operator Exists without key).
func tolerationValues(field string, ts []corev1.Toleration) []Value {
	var out []Value
	for i, t := range ts {
		out = append(out, Value{Path: fmt.Sprintf("%s[%d]", field, i), Value: t.Key})
	}
	return out
}

// localLocation is the host path of a local:// location at field, if it
// is one.
func localLocation(field, uri string) []Value {
	if p, ok := strings.CutPrefix(strings.TrimSpace(uri), "local://"); ok {
		// One trailing "/" names the same directory (Fluid's docs write
		// local:///mnt/data/); the path is judged without it.
		if len(p) > 1 {
			p = strings.TrimSuffix(p, "/")
		}
		return []Value{{Path: field, Value: p}}
	}
	return nil
}

// operationGuards adds what a data operation's pods could reach the node
// with: local:// locations (host directories the Job mounts), tolerations,
// and a DataProcess's pod: its volumes, its pod spec's host privileges and
// the security annotations of its pod metadata (guards_podspec.go).
func operationGuards(obj client.Object, f *Facts) {
	op, ok := obj.(datav1alpha1.OperationObject)
	if !ok {
		return
	}
	for _, l := range op.GetLocations() {
		f.LocalMounts = append(f.LocalMounts, localLocation(l.Path, l.URI)...)
	}
	if p := op.GetPlacement(); p != nil {
		f.Tolerations = append(f.Tolerations, tolerationValues(p.Field+".tolerations", p.Tolerations)...)
	}
	if dp, ok := obj.(*datav1alpha1.DataProcess); ok {
		securityAnnotations("spec.processor.podMetadata.annotations", dp.Spec.Processor.PodMetadata.Annotations, f)
		if s := dp.Spec.Processor.Script; s != nil {
			volumeGuards("spec.processor.script.volumes", s.Volumes, f)
		}
		if j := dp.Spec.Processor.Job; j != nil && j.PodSpec != nil {
			podGuards("spec.processor.job.podSpec", j.PodSpec, f)
		}
	}
}

// hostPaths are the host paths of volumes, at field.
func hostPaths(field string, volumes []corev1.Volume) []Value {
	var out []Value
	for i, v := range volumes {
		if v.HostPath != nil {
			out = append(out, Value{Path: fmt.Sprintf("%s[%d].hostPath", field, i), Value: v.HostPath.Path})
		}
	}
	return out
}
