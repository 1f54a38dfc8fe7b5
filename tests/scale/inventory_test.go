package scale_test

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// inventory counts the objects a run left in its namespace by kind, the
// PersistentVolumes, and the nodes' labels whose key starts with
// "fluid.io/s-" (a Dataset's cache labels): what the controller wrote for
// the run's Datasets, and what the floor benchmark writes in its place.
func inventory(ctx context.Context, c client.Client, ns string) string {
	var parts []string
	for _, l := range []struct {
		kind string
		list client.ObjectList
		opts []client.ListOption
	}{
		{"StatefulSets", &appsv1.StatefulSetList{}, []client.ListOption{client.InNamespace(ns)}},
		{"DaemonSets", &appsv1.DaemonSetList{}, []client.ListOption{client.InNamespace(ns)}},
		{"Pods", &corev1.PodList{}, []client.ListOption{client.InNamespace(ns)}},
		{"Services", &corev1.ServiceList{}, []client.ListOption{client.InNamespace(ns)}},
		{"ConfigMaps", &corev1.ConfigMapList{}, []client.ListOption{client.InNamespace(ns)}},
		{"Secrets", &corev1.SecretList{}, []client.ListOption{client.InNamespace(ns)}},
		{"PVCs", &corev1.PersistentVolumeClaimList{}, []client.ListOption{client.InNamespace(ns)}},
		{"PVs", &corev1.PersistentVolumeList{}, nil},
	} {
		if err := c.List(ctx, l.list, l.opts...); err != nil {
			return err.Error()
		}
		parts = append(parts, fmt.Sprintf("%d %s", meta.LenList(l.list), l.kind))
	}
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes); err != nil {
		return err.Error()
	}
	labels := 0
	for _, n := range nodes.Items {
		for k := range n.Labels {
			if strings.HasPrefix(k, "fluid.io/s-") {
				labels++
			}
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("%d dataset cache labels on nodes", labels)), ", ")
}
