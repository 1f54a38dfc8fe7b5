package volume

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// MaxUsersNamed bounds how many Pods UsersOf names.
const MaxUsersNamed = 5

// UsersOf names the unfinished Pods (not Succeeded or Failed) in the
// namespace that use the Dataset name: at most MaxUsersNamed of them, sorted,
// then "and N more". Both a runtime's and a Dataset's deletion wait for
// them.
func UsersOf(ctx context.Context, r client.Reader, namespace, name string) ([]string, error) {
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing the Pods of %s: %w", namespace, err)
	}
	var users []string
	for i := range pods.Items {
		if p := &pods.Items[i]; Uses(p, name) {
			users = append(users, p.Name)
		}
	}
	return summarise(users), nil
}

// Uses says whether an unfinished Pod uses the Dataset name of its own
// namespace: it mounts the Dataset's PVC (named after it), or the webhook
// recorded the Dataset in fluid.io/datasets-in-use, as it does for a Pod
// whose PVC it rewrote to a FUSE sidecar's hostPath.
func Uses(p *corev1.Pod, name string) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	return slices.Contains(UsedNames(p), name)
}

// UsedNames are the names under which a Pod may use Datasets of its own
// namespace, once each: the PVCs it mounts (a Dataset's PVC is named after
// it), then the Datasets its fluid.io/datasets-in-use annotation lists (the
// webhook writes those of other namespaces as namespace/name; they are
// left out).
func UsedNames(p *corev1.Pod) []string {
	var out []string
	add := func(n string) {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			add(v.PersistentVolumeClaim.ClaimName)
		}
	}
	if v := p.Annotations[datav1alpha1.AnnotationDatasetsInUse]; v != "" {
		for _, n := range strings.Split(v, ",") {
			n = strings.TrimSpace(n)
			if ns, name, ok := strings.Cut(n, "/"); ok {
				if ns != p.Namespace {
					continue
				}
				n = name
			}
			add(n)
		}
	}
	return out
}

// summarise sorts names and keeps MaxUsersNamed of them, then "and N more".
func summarise(names []string) []string {
	slices.Sort(names)
	if len(names) > MaxUsersNamed {
		names = append(names[:MaxUsersNamed], fmt.Sprintf("and %d more", len(names)-MaxUsersNamed))
	}
	return names
}
