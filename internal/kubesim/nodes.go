package kubesim

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FakeNodeAnnotation marks the nodes kwok manages.
const FakeNodeAnnotation = "kwok.x-k8s.io/node"

// AddNodes creates fake nodes named <prefix>-0 … <prefix>-<n-1>, with the
// given labels besides kubernetes.io/hostname, each able to run maxPods
// pods. kwok makes them Ready.
func AddNodes(ctx context.Context, c client.Client, prefix string, n, maxPods int, labels map[string]string) ([]string, error) {
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return names, AddNamedNodes(ctx, c, names, maxPods, labels)
}

// AddNamedNodes is AddNodes with the nodes' names.
func AddNamedNodes(ctx context.Context, c client.Client, names []string, maxPods int, labels map[string]string) error {
	for _, name := range names {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{FakeNodeAnnotation: "fake"},
				Labels: map[string]string{corev1.LabelHostname: name, "type": "kwok"}},
			Spec: corev1.NodeSpec{Taints: nil},
		}
		for k, v := range labels {
			node.Labels[k] = v
		}
		if err := c.Create(ctx, node); err != nil {
			return fmt.Errorf("creating node %s: %w", name, err)
		}
		res := corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("256Gi"),
			corev1.ResourcePods: *resource.NewQuantity(int64(maxPods), resource.DecimalSI),
		}
		// A patch, not an update: kwok starts patching the node's status at once.
		patch := client.MergeFrom(node.DeepCopy())
		node.Status.Capacity, node.Status.Allocatable = res, res
		if err := c.Status().Patch(ctx, node, patch); err != nil {
			return fmt.Errorf("setting node %s capacity: %w", name, err)
		}
	}
	return nil
}
