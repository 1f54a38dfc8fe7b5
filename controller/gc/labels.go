package gc

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/nodelabels"
)

// A runtime's cache labels on a node are the group nodelabels.CacheKeys of
// its engine's type, all written at once, and the exclusive label for an
// exclusive Dataset. Node labels carry no owner, so the sweep takes as the
// controller's only a group it recognises by its runtime-type label
// ("fluid.io/s-<type>-<suffix>" = "true", of an engine's type here), and
// as an orphan only one whose keys no runtime's labels use (owners.labelKeys:
// keys of different Datasets can coincide, as in Fluid). It removes the
// group's keys that no runtime uses, the exclusive label when it names a
// Dataset without any runtime, and recomputes dataset-num, as the runtime's
// deletion does (nodelabels.Patch). A label outside such a group, e.g. a
// lone capacity label, is not the controller's to judge and stays.

// cachedNodes are the nodes, from the cache.
func (s *Sweeper) cachedNodes(ctx context.Context) ([]corev1.Node, error) {
	list := &corev1.NodeList{}
	if err := s.Client.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	return list.Items, nil
}

// orphanLabels are the labels of n that runtimes that are gone left: the
// keys to remove (the exclusive label with its value), or nil.
func orphanLabels(n *corev1.Node, o *owners, types []string) map[string]string {
	remove := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(n.Labels)) {
		if n.Labels[k] != "true" || o.labelKeys[k] {
			continue
		}
		for _, typ := range types {
			suffix, ok := nodelabels.SuffixOfRuntimeCacheKey(typ, k)
			if !ok {
				continue
			}
			for _, key := range nodelabels.CacheKeys(typ, suffix) {
				if _, on := n.Labels[key]; on && !o.labelKeys[key] {
					remove[key] = ""
				}
			}
		}
	}
	if len(remove) == 0 {
		return nil
	}
	if v := n.Labels[datav1alpha1.LabelExclusive]; v != "" {
		if ns, name, ok := strings.Cut(v, "_"); ok && !o.names[ns+"/"+name] {
			remove[datav1alpha1.LabelExclusive] = v
		}
	}
	return remove
}

// sweepNodeLabels removes orphan labels (orphanLabels) from nodes, at most
// Limit nodes. Each patch has the node's resourceVersion as read for its
// precondition: a node changed since (a runtime labelled it) is left for
// the next pass.
func (s *Sweeper) sweepNodeLabels(ctx context.Context, o *owners, nodes []corev1.Node) error {
	types := slices.Sorted(maps.Keys(s.RuntimeKinds))
	patched := 0
	for i := range nodes {
		if patched >= s.limit() {
			return nil
		}
		n := &nodes[i]
		remove := orphanLabels(n, o, types)
		if remove == nil {
			continue
		}
		ctrl.LoggerFrom(ctx).Info("removing the node labels of runtimes that are gone", "node", n.Name, "labels", slices.Sorted(maps.Keys(remove)))
		switch _, err := nodelabels.Patch(ctx, s.Client, n, remove, false, n.ResourceVersion); {
		case apierrors.IsConflict(err), apierrors.IsNotFound(err):
			continue
		case err != nil:
			return fmt.Errorf("removing labels of node %s: %w", n.Name, err)
		}
		patched++
	}
	return nil
}
