package volume

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Users is UsersOf read from the cache, and when the cache shows none,
// from the API server through live (when not nil): every caller decides on
// the answer something that cannot be undone (deleting a runtime, a
// Dataset's volumes, replacing them), and a Pod created a moment ago may
// not be in the cache yet.
func Users(ctx context.Context, cached, live client.Reader, namespace, name string) ([]string, error) {
	users, err := UsersOf(ctx, cached, namespace, name)
	if err != nil || len(users) > 0 || live == nil {
		return users, err
	}
	return UsersOf(ctx, live, namespace, name)
}

// MaxUsersNamed bounds how many Pods UsersOf names.
const MaxUsersNamed = 5

// UsersOf names the unfinished Pods (not Succeeded or Failed) in the
// namespace that use the Dataset name, except those left on a lost node
// (Lost): at most MaxUsersNamed of them, sorted, then "and N more". Both a
// runtime's and a Dataset's deletion wait for them.
func UsersOf(ctx context.Context, r client.Reader, namespace, name string) ([]string, error) {
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing the Pods of %s: %w", namespace, err)
	}
	var users []string
	for i := range pods.Items {
		p := &pods.Items[i]
		if !Uses(p, name) {
			continue
		}
		lost, err := Lost(ctx, r, p, time.Now())
		if err != nil {
			return nil, err
		}
		if !lost {
			users = append(users, p.Name)
		}
	}
	return summarise(users), nil
}

// ForcedNote is the Warning event's note when a deletion goes on, forced
// (datav1alpha1.AnnotationForceDelete), although users still use the
// Dataset.
func ForcedNote(users []string) string {
	return fmt.Sprintf("deleting although Pods use the Dataset (%s): %s", datav1alpha1.AnnotationForceDelete, strings.Join(users, ", "))
}

// Lost says whether a Pod is gone in all but its object: it was deleted,
// its grace period is over, and its node is not Ready (or no longer
// exists), so no kubelet will confirm its end and nothing runs it. The node
// lifecycle controller deletes the Pods of a NotReady node after their
// toleration (5 minutes by default); from then they stop holding a
// deletion.
func Lost(ctx context.Context, r client.Reader, p *corev1.Pod, now time.Time) (bool, error) {
	switch {
	case p.DeletionTimestamp == nil || now.Before(p.DeletionTimestamp.Time):
		return false, nil
	case p.Spec.NodeName == "":
		return true, nil // deleted and never scheduled: nothing runs it
	}
	node := &corev1.Node{}
	switch err := r.Get(ctx, client.ObjectKey{Name: p.Spec.NodeName}, node); {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("reading node %s of Pod %s: %w", p.Spec.NodeName, p.Name, err)
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status != corev1.ConditionTrue, nil
		}
	}
	return true, nil
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
