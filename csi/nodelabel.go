package csi

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// NodeLabeler sets and removes labels on this node.
type NodeLabeler interface {
	SetLabel(ctx context.Context, node, key, value string) error
	RemoveLabel(ctx context.Context, node, key string) error
}

// KubeLabeler labels nodes through the API server with merge patches.
type KubeLabeler struct {
	Client kubernetes.Interface
}

// SetLabel implements NodeLabeler.
func (k *KubeLabeler) SetLabel(ctx context.Context, node, key, value string) error {
	return k.patch(ctx, node, map[string]any{key: value})
}

// RemoveLabel implements NodeLabeler.
func (k *KubeLabeler) RemoveLabel(ctx context.Context, node, key string) error {
	return k.patch(ctx, node, map[string]any{key: nil})
}

func (k *KubeLabeler) patch(ctx context.Context, node string, labels map[string]any) error {
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		return err
	}
	if _, err := k.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, body, metav1PatchOptions); err != nil {
		return fmt.Errorf("patching node %s labels: %w", node, err)
	}
	return nil
}
