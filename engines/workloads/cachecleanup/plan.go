package cachecleanup

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// Node is one node's part of a cleanup: the runtime's host cache
// directories its engine pods mounted there, and the image (one of those
// pods', so already on the node) that removes them.
type Node struct {
	Name string
	// Dirs are host cache directories of the runtime
	// (engines.OwnedCacheDir), sorted.
	Dirs        []string
	Image       string
	PullSecrets []corev1.LocalObjectReference
}

// EnginePod reports whether p is a pod of the engine release of the
// runtime name: labelled by an engine chart as the release's (instance
// name, managed-by sluice) and controlled by its master or worker
// StatefulSet or its FUSE DaemonSet.
func EnginePod(p *corev1.Pod, name string) bool {
	if p.Labels["app.kubernetes.io/instance"] != name || p.Labels[engines.LabelManagedBy] != "sluice" {
		return false
	}
	ref := metav1.GetControllerOf(p)
	if ref == nil || ref.APIVersion != "apps/v1" {
		return false
	}
	switch ref.Kind {
	case "StatefulSet":
		return ref.Name == name+"-master" || ref.Name == name+"-worker"
	case "DaemonSet":
		return ref.Name == name+datav1alpha1.FuseDaemonSetSuffix
	}
	return false
}

// Plan is the cleanup of the runtime namespace/name from its engine's
// pods: for each node a pod of the release ran on, the runtime's host
// cache directories (engines.HostCacheDir) that pod mounted as hostPath
// volumes. Nodes whose pods mounted none (emptyDir caches, which go with
// their pods) are left out, and so is every other hostPath: Plan never
// names a directory that is not provably the runtime's. Nodes are sorted
// by name.
func Plan(pods []corev1.Pod, namespace, name string) []Node {
	sorted := slices.Clone(pods)
	slices.SortFunc(sorted, func(a, b corev1.Pod) int { return cmp.Compare(a.Name, b.Name) })
	byNode := map[string]*Node{}
	for i := range sorted {
		p := &sorted[i]
		if p.Namespace != namespace || p.Spec.NodeName == "" || !EnginePod(p, name) {
			continue
		}
		owned := map[string]string{} // volume name: host directory
		for _, v := range p.Spec.Volumes {
			if v.HostPath == nil {
				continue
			}
			if _, ok := engines.OwnedCacheDir(v.HostPath.Path, namespace, name); ok {
				owned[v.Name] = v.HostPath.Path
			}
		}
		if len(owned) == 0 {
			continue
		}
		n := byNode[p.Spec.NodeName]
		if n == nil {
			n = &Node{Name: p.Spec.NodeName}
			byNode[n.Name] = n
		}
		for _, dir := range owned {
			if !slices.Contains(n.Dirs, dir) {
				n.Dirs = append(n.Dirs, dir)
			}
		}
		slices.Sort(n.Dirs)
		if n.Image == "" {
			n.Image = mountingImage(p.Spec, owned)
		}
		for _, s := range p.Spec.ImagePullSecrets {
			if !slices.Contains(n.PullSecrets, s) {
				n.PullSecrets = append(n.PullSecrets, s)
			}
		}
	}
	out := make([]Node, 0, len(byNode))
	for _, n := range byNode {
		if n.Image != "" {
			out = append(out, *n)
		}
	}
	slices.SortFunc(out, func(a, b Node) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// mountingImage is the image of the first container mounting one of the
// volumes.
func mountingImage(spec corev1.PodSpec, volumes map[string]string) string {
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		for _, m := range c.VolumeMounts {
			if _, ok := volumes[m.Name]; ok && c.Image != "" {
				return c.Image
			}
		}
	}
	return ""
}
