package csi

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// NodeLabeler sets and removes labels on this node.
type NodeLabeler interface {
	SetLabel(ctx context.Context, node, key, value string) error
	RemoveLabel(ctx context.Context, node, key string) error
}

// FuseWatcher reports the generation of a runtime's FUSE DaemonSet, so that
// cleanPolicy OnFuseChanged can tell whether FUSE changed since staging.
type FuseWatcher interface {
	// FuseGeneration returns the generation of DaemonSet <runtime>-fuse, and
	// false if it does not exist.
	FuseGeneration(ctx context.Context, namespace, runtime string) (int64, bool, error)
}

// FuseGeneration implements FuseWatcher.
func (k *KubeLabeler) FuseGeneration(ctx context.Context, namespace, runtime string) (int64, bool, error) {
	ds, err := k.Client.AppsV1().DaemonSets(namespace).Get(ctx, runtime+datav1alpha1.FuseDaemonSetSuffix, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("reading the FUSE DaemonSet of %s/%s: %w", namespace, runtime, err)
	}
	return ds.Generation, true, nil
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
