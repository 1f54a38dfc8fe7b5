package runtime

import (
	"context"
	"encoding/json"
	"maps"
	"regexp"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// labelNodes keeps the Dataset's cache labels on exactly the nodes running a
// ready worker of the runtime, and points the runtime's cacheAffinity at
// them. The webhook's data-affinity policies select on these labels.
func (r *Reconciler) labelNodes(ctx context.Context, ds *datav1alpha1.Dataset, rt client.Object) error {
	key := datav1alpha1.KeyOf(ds)
	sts, err := r.statefulSet(ctx, rt, "-worker")
	if err != nil || sts == nil {
		return err
	}
	sel, err := metav1.LabelSelectorAsSelector(sts.Spec.Selector)
	if err != nil {
		return err
	}
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(rt.GetNamespace()), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return err
	}
	want := map[string]bool{}
	for i := range pods.Items {
		if p := &pods.Items[i]; p.Spec.NodeName != "" && podReady(p) {
			want[p.Spec.NodeName] = true
		}
	}
	labels := r.cacheLabels(key, ds, rt)
	for node := range want {
		if err := r.patchNode(ctx, node, labels, true); err != nil {
			return err
		}
	}
	if err := r.unlabelNodes(ctx, key, labels, want); err != nil {
		return err
	}
	statusOf(rt).CacheAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: key.CacheLabelKey(), Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}},
		}}},
	}}
	return nil
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
func (r *Reconciler) cacheLabels(key datav1alpha1.DatasetKey, ds *datav1alpha1.Dataset, rt client.Object) map[string]string {
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

// totalCapacityKey matches every dataset's total-capacity label, one per
// dataset cached on a node; their count is the node's dataset-num.
var totalCapacityKey = regexp.MustCompile(`^fluid\.io/s-h-[a-z0-9]+-t-`)

// patchNode adds or removes labels on a node and recomputes dataset-num.
// Runtimes reconcile concurrently and kwok or the kubelet keep updating
// node status, so the change is a merge patch of the labels alone, built
// under a per-node lock from a fresh read: no lost update, no conflict
// retries. A node whose cached labels already say the same is not touched.
func (r *Reconciler) patchNode(ctx context.Context, name string, labels map[string]string, add bool) error {
	n := &corev1.Node{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: name}, n); err != nil {
		return client.IgnoreNotFound(err)
	}
	if _, changed := relabel(n.Labels, labels, add); !changed {
		return nil
	}
	unlock := r.nodeLocks.lock(name)
	defer unlock()
	if err := r.reader().Get(ctx, types.NamespacedName{Name: name}, n); err != nil {
		return client.IgnoreNotFound(err)
	}
	next, changed := relabel(n.Labels, labels, add)
	if !changed {
		return nil
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
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": diff}})
	if err != nil {
		return err
	}
	return client.IgnoreNotFound(r.Client.Patch(ctx, n, client.RawPatch(types.MergePatchType, patch)))
}

// relabel returns a node's labels with labels added or removed and
// dataset-num recomputed, and whether that changes them.
func relabel(current, labels map[string]string, add bool) (map[string]string, bool) {
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

// keyedLocks serialises work per key (here: node name).
type keyedLocks struct {
	mu sync.Mutex
	m  map[string]*sync.Mutex
}

func (k *keyedLocks) lock(key string) (unlock func()) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*sync.Mutex{}
	}
	l, ok := k.m[key]
	if !ok {
		l = &sync.Mutex{}
		k.m[key] = l
	}
	k.mu.Unlock()
	l.Lock()
	return l.Unlock
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
func tierCapacity(rt client.Object) (mem, disk int64) {
	for _, l := range levelsOf(rt) {
		if l.MediumType == datav1alpha1.Memory {
			mem += levelQuota(l)
		} else {
			disk += levelQuota(l)
		}
	}
	return mem, disk
}
