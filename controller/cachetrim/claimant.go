package cachetrim

import (
	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// managedBy is the label every pod template Sluice renders carries (the
// engines' charts, data operations, metadata and cleanup Jobs;
// TestEveryRenderedPodIsSluices checks the goldens of every engine).
const managedBy = "app.kubernetes.io/managed-by"

// Sluices reports whether p is a Pod Sluice rendered (labelled
// app.kubernetes.io/managed-by=sluice) or one the webhook injected
// (done.sidecar.fluid.io/inject=true). The controller reads such Pods'
// containers, conditions and addresses; of every other Pod, which is a
// tenant's, it reads only which Datasets it uses and whether it has ended
// (claimant). A tenant may set either label: its Pod is then kept as
// Sluice's are, which costs memory, never a wrong reading.
func Sluices(p *corev1.Pod) bool {
	return p.Labels[managedBy] == "sluice" || p.Labels[datav1alpha1.LabelInjectionDone] == "true"
}

// claimant is what the controller reads of a tenant's Pod: its identity,
// labels, owners, deletion and the annotations it reads (podMeta), its
// PVC volumes (the Datasets it uses: volume.UsedNames) and its phase
// (dataset deletion waits for a Pod until it has ended). A Pod of 50,000
// then costs about half of what Pod keeps of Sluice's (docs/benchmarks.md).
func claimant(p *corev1.Pod) *corev1.Pod {
	out := &corev1.Pod{
		TypeMeta:   p.TypeMeta,
		ObjectMeta: podMeta(&p.ObjectMeta),
		Status:     corev1.PodStatus{Phase: p.Status.Phase},
	}
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			out.Spec.Volumes = append(out.Spec.Volumes, corev1.Volume{Name: v.Name,
				VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: v.PersistentVolumeClaim}})
		}
	}
	return out
}
