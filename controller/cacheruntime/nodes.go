package cacheruntime

import (
	"context"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/nodelabels"
	"github.com/sluice-data/sluice/engines"
)

// labelNodes keeps the Dataset's cache labels on exactly the nodes running a
// ready worker of the runtime, and returns the runtime's cacheAffinity:
// where the workers may run, narrowed to the zones and regions of those
// nodes (locality.go; nil when nothing is known). Without a worker
// StatefulSet it observes nothing (nil). The webhook's data-affinity
// policies select on these labels and read the cacheAffinity.
func (r *Reconciler) labelNodes(ctx context.Context, ds *datav1alpha1.Dataset, rt datav1alpha1.RuntimeObject) (*observedAffinity, error) {
	key := datav1alpha1.KeyOf(ds)
	sts, err := r.statefulSet(ctx, rt, "-worker")
	if err != nil || sts == nil {
		return nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(sts.Spec.Selector)
	if err != nil {
		return nil, err
	}
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(rt.GetNamespace()), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for i := range pods.Items {
		// Only the StatefulSet's own pods: a pod that merely carries its
		// labels does not make its node a cache node.
		if p := &pods.Items[i]; p.Spec.NodeName != "" && podReady(p) && controlledBy(p, sts) {
			want[p.Spec.NodeName] = true
		}
	}
	labels := r.cacheLabels(key, ds, rt)
	for node := range want {
		if err := r.patchNode(ctx, node, labels, true); err != nil {
			return nil, err
		}
	}
	if err := r.unlabelNodes(ctx, key, labels, want); err != nil {
		return nil, err
	}
	nodes, err := r.nodesNamed(ctx, want)
	if err != nil {
		return nil, err
	}
	return &observedAffinity{affinity: cacheAffinity(&sts.Spec.Template.Spec, nodes)}, nil
}

// nodesNamed reads the named nodes, sorted by name; a node gone is left out.
func (r *Reconciler) nodesNamed(ctx context.Context, names map[string]bool) ([]*corev1.Node, error) {
	var nodes []*corev1.Node
	for _, name := range slices.Sorted(maps.Keys(names)) {
		n := &corev1.Node{}
		if err := r.Client.Get(ctx, types.NamespacedName{Name: name}, n); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// controlledBy reports whether owner is pod's controller (by UID).
func controlledBy(pod *corev1.Pod, owner metav1.Object) bool {
	ref := metav1.GetControllerOf(pod)
	return ref != nil && ref.UID == owner.GetUID()
}

// unlabelNodes removes labels (the Dataset's cacheLabels) from the nodes
// carrying them that are not in keep.
func (r *Reconciler) unlabelNodes(ctx context.Context, key datav1alpha1.DatasetKey, labels map[string]string, keep map[string]bool) error {
	nodes := &corev1.NodeList{}
	if err := r.Client.List(ctx, nodes, client.MatchingLabels{key.RuntimeCacheLabelKey(r.Engine.Type()): "true"}); err != nil {
		return err
	}
	for _, n := range nodes.Items {
		if !keep[n.Name] {
			if err := r.patchNode(ctx, n.Name, labels, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// cacheLabels are the labels a node holding the Dataset's cache carries.
func (r *Reconciler) cacheLabels(key datav1alpha1.DatasetKey, ds *datav1alpha1.Dataset, rt datav1alpha1.RuntimeObject) map[string]string {
	typ := r.Engine.Type()
	mem, disk := tierCapacity(rt)
	l := map[string]string{
		key.CacheLabelKey():                                    "true",
		key.RuntimeCacheLabelKey(typ):                          "true",
		key.CapacityLabelKey(typ, datav1alpha1.MemoryCapacity): engines.FormatBytes(mem),
		key.CapacityLabelKey(typ, datav1alpha1.DiskCapacity):   engines.FormatBytes(disk),
		key.CapacityLabelKey(typ, datav1alpha1.TotalCapacity):  engines.FormatBytes(mem + disk),
	}
	if ds != nil && ds.Spec.Placement == datav1alpha1.ExclusiveMode {
		l[datav1alpha1.LabelExclusive] = key.ExclusiveLabelValue()
	}
	return l
}

// patchNode adds or removes labels on a node and recomputes dataset-num.
// Runtimes reconcile concurrently and kwok or the kubelet keep updating
// node status, so the change is a merge patch of the labels alone, built
// under a per-node lock from the node as last known (the cache, or this
// controller's own last change of it when the cache does not show that
// yet: nodestate.go), with that node's resourceVersion as a precondition:
// the API server applies it only if the node has not changed since, which
// is the rule. Otherwise (a conflict) it is recomputed from a fresh read,
// without precondition: the lock keeps this controller's own label changes
// of the node in order. A node whose labels already say the same is not
// touched.
func (r *Reconciler) patchNode(ctx context.Context, name string, labels map[string]string, add bool) error {
	key := types.NamespacedName{Name: name}
	st := r.nodes.lock(name)
	defer st.Unlock()
	n := &corev1.Node{}
	if err := r.Client.Get(ctx, key, n); err != nil {
		return client.IgnoreNotFound(err)
	}
	st.recall(n)
	patched, err := nodelabels.Patch(ctx, r.Client, n, labels, add, n.ResourceVersion)
	if apierrors.IsConflict(err) {
		if err := r.reader().Get(ctx, key, n); err != nil {
			return client.IgnoreNotFound(err)
		}
		patched, err = nodelabels.Patch(ctx, r.Client, n, labels, add, "")
	}
	if err != nil {
		return client.IgnoreNotFound(err)
	}
	if patched {
		st.remember(n)
	}
	return nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// tierCapacity is the per-worker cache size in memory and on disk.
func tierCapacity(rt datav1alpha1.RuntimeObject) (mem, disk int64) {
	for _, l := range rt.GetTieredStore().Levels {
		if l.MediumType == datav1alpha1.Memory {
			mem += levelQuota(l)
		} else {
			disk += levelQuota(l)
		}
	}
	return mem, disk
}
