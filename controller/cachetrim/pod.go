package cachetrim

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pod returns the part of p the controller reads. Of a tenant's Pod (not
// Sluices) that is claimant's. Of Sluice's: its identity, labels,
// owners, deletion and the annotations named by Annotations; of its spec
// the node, restart policy, node affinity, image pull secrets, the
// volumes' names with their PVC and hostPath sources only, and each
// container's name, image, ports and volume mounts; of its status the
// phase, reason, address, the conditions' type and status and the
// containers' states. Everything else (env, commands, probes, resources,
// other volume sources, large annotations) is dropped, so a cached Pod
// takes a few kilobytes whatever its author put in it. What is kept is
// compacted, and its labels, owners and namespace shared with the Pods
// that have equal ones (interned). A Pod Pod already returned is returned
// as it is (trimmed).
func Pod(p *corev1.Pod) *corev1.Pod {
	if trimmed(p) {
		return p
	}
	if !Sluices(p) {
		return keep(claimant(p))
	}
	out := &corev1.Pod{
		TypeMeta:   p.TypeMeta,
		ObjectMeta: podMeta(&p.ObjectMeta),
		Spec: corev1.PodSpec{
			NodeName:         p.Spec.NodeName,
			RestartPolicy:    p.Spec.RestartPolicy,
			ImagePullSecrets: p.Spec.ImagePullSecrets,
			Volumes:          volumes(p.Spec.Volumes),
			InitContainers:   containers(p.Spec.InitContainers),
			Containers:       containers(p.Spec.Containers),
		},
		Status: corev1.PodStatus{
			Phase:                 p.Status.Phase,
			Reason:                p.Status.Reason,
			PodIP:                 p.Status.PodIP,
			Conditions:            conditions(p.Status.Conditions),
			InitContainerStatuses: statuses(p.Status.InitContainerStatuses),
			ContainerStatuses:     statuses(p.Status.ContainerStatuses),
		},
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		out.Spec.Affinity = &corev1.Affinity{NodeAffinity: a.NodeAffinity}
	}
	return keep(out)
}

// keep is the Pod the cache holds for the trimmed p: compacted, then its
// labels, owners and namespace interned.
func keep(p *corev1.Pod) *corev1.Pod {
	out := compact(p)
	interned.pod(out)
	return out
}

// trimmed reports whether p is already what Pod returns. The cache may
// transform an object twice: client-go's watch-list streams the initial
// objects into a store that transforms them, then replaces its queue's
// content with that store's, transforming each again. A second copy
// would leave the first's memory scattered among the second's (the heap
// of 50,000 cached Pods was 1.8 times their live bytes). The API server
// accepts no Pod without a container nor a container without a
// termination message policy (validation requires both); Pod keeps no
// container of a tenant's Pod and no policy of Sluice's.
func trimmed(p *corev1.Pod) bool {
	return len(p.Spec.Containers) == 0 || p.Spec.Containers[0].TerminationMessagePolicy == ""
}

// podMeta keeps an object's identity, labels, owners, finalizers and
// deletion, and the annotations named by Annotations; managedFields and
// every other annotation go.
func podMeta(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: m.Name, GenerateName: m.GenerateName, Namespace: m.Namespace, UID: m.UID,
		ResourceVersion: m.ResourceVersion, Generation: m.Generation,
		CreationTimestamp: m.CreationTimestamp, DeletionTimestamp: m.DeletionTimestamp,
		DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds,
		Labels:                     m.Labels, Annotations: keepAnnotations(m.Annotations),
		OwnerReferences: m.OwnerReferences, Finalizers: m.Finalizers,
	}
}

// volumes keeps every volume's name (so indexes still match), and of its
// source only a PVC (a Dataset's use) or a hostPath (an engine's cache
// directory).
func volumes(in []corev1.Volume) []corev1.Volume {
	if in == nil {
		return nil
	}
	out := make([]corev1.Volume, len(in))
	for i, v := range in {
		out[i] = corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: v.PersistentVolumeClaim, HostPath: v.HostPath}}
	}
	return out
}

func containers(in []corev1.Container) []corev1.Container {
	if in == nil {
		return nil
	}
	out := make([]corev1.Container, len(in))
	for i, c := range in {
		out[i] = corev1.Container{Name: c.Name, Image: c.Image, Ports: c.Ports, VolumeMounts: c.VolumeMounts}
	}
	return out
}

func conditions(in []corev1.PodCondition) []corev1.PodCondition {
	if in == nil {
		return nil
	}
	out := make([]corev1.PodCondition, len(in))
	for i, c := range in {
		out[i] = corev1.PodCondition{Type: c.Type, Status: c.Status}
	}
	return out
}

func statuses(in []corev1.ContainerStatus) []corev1.ContainerStatus {
	if in == nil {
		return nil
	}
	out := make([]corev1.ContainerStatus, len(in))
	for i, s := range in {
		out[i] = corev1.ContainerStatus{Name: s.Name, State: s.State, Ready: s.Ready, RestartCount: s.RestartCount}
	}
	return out
}
