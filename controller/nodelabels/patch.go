package nodelabels

import (
	"context"
	"encoding/json"
	"maps"
	"regexp"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// totalCapacityKey matches every dataset's total-capacity label, one per
// dataset cached on a node; their count is the node's dataset-num.
var totalCapacityKey = regexp.MustCompile(`^fluid\.io/s-h-[a-z0-9]+-t-`)

// Patch merge-patches the difference between n's labels and n's labels
// relabelled (Relabel), if any, and updates n to the patched node; a
// non-empty resourceVersion is the patch's precondition. It reports
// whether it patched.
func Patch(ctx context.Context, c client.Writer, n *corev1.Node, labels map[string]string, add bool, resourceVersion string) (bool, error) {
	next, changed := Relabel(n.Labels, labels, add)
	if !changed {
		return false, nil
	}
	diff := map[string]any{}
	for k, v := range next {
		if n.Labels[k] != v {
			diff[k] = v
		}
	}
	for k := range n.Labels {
		if _, ok := next[k]; !ok {
			diff[k] = nil
		}
	}
	m := map[string]any{"labels": diff}
	if resourceVersion != "" {
		m["resourceVersion"] = resourceVersion
	}
	patch, err := json.Marshal(map[string]any{"metadata": m})
	if err != nil {
		return false, err
	}
	return true, c.Patch(ctx, n, client.RawPatch(types.MergePatchType, patch))
}

// Relabel returns a node's labels with labels added or removed and
// dataset-num recomputed, and whether that changes them. The exclusive
// label is removed only if its value is the one given.
func Relabel(current, labels map[string]string, add bool) (map[string]string, bool) {
	next := maps.Clone(current)
	if next == nil {
		next = map[string]string{}
	}
	for k, v := range labels {
		switch {
		case add:
			next[k] = v
		case k != datav1alpha1.LabelExclusive || next[k] == v:
			delete(next, k)
		}
	}
	count := 0
	for k := range next {
		if totalCapacityKey.MatchString(k) {
			count++
		}
	}
	if count > 0 {
		next[datav1alpha1.LabelDatasetNum] = strconv.Itoa(count)
	} else {
		delete(next, datav1alpha1.LabelDatasetNum)
	}
	return next, !maps.Equal(next, current)
}
