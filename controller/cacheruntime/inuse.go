package cacheruntime

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// maxUsersNamed bounds how many Pods a condition message lists.
const maxUsersNamed = 5

// podsUsing names the unfinished Pods that mount the PVC of the runtime's
// Dataset (the PVC shares the runtime's name and namespace), at most
// maxUsersNamed of them plus a count of the rest.
func (r *Reconciler) podsUsing(ctx context.Context, rt client.Object) ([]string, error) {
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(rt.GetNamespace())); err != nil {
		return nil, err
	}
	var users []string
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == rt.GetName() {
				users = append(users, p.Name)
				break
			}
		}
	}
	sort.Strings(users)
	if len(users) > maxUsersNamed {
		users = append(users[:maxUsersNamed], fmt.Sprintf("and %d more", len(users)-maxUsersNamed))
	}
	return users, nil
}
