package gc

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/nodelabels"
)

// owners are the runtimes that exist, as the cache shows them: what they
// own is not swept.
type owners struct {
	// uids are the runtimes' UIDs (a FUSE record names its runtime's).
	uids map[types.UID]bool
	// names are the runtimes' "<namespace>/<name>" (a Dataset's volumes
	// and its exclusive label name the runtime's Dataset, of its name).
	names map[string]bool
	// labelKeys are the node label keys the runtimes' cache labels use:
	// nodelabels.CacheKeys of each engine runtime's type, by the name and,
	// when its Dataset exists, by the Dataset's UID (DatasetKey), and the
	// cache label key of every runtime of any kind.
	labelKeys map[string]bool
}

// kinds are the runtime kinds that own objects: the engines' and the
// API's (a runtime of any kind the API defines owns its Dataset's volumes
// and records, whether or not an engine here serves it), each once.
func (s *Sweeper) kinds() []func() datav1alpha1.RuntimeObject {
	seen := map[string]bool{}
	var out []func() datav1alpha1.RuntimeObject
	add := func(k func() datav1alpha1.RuntimeObject) {
		if name := fmt.Sprintf("%T", k()); !seen[name] {
			seen[name] = true
			out = append(out, k)
		}
	}
	for _, k := range s.RuntimeKinds {
		add(k)
	}
	for _, k := range datav1alpha1.RuntimeKinds() {
		add(func() datav1alpha1.RuntimeObject {
			rt, _ := datav1alpha1.NewRuntime(k.Kind)
			return rt
		})
	}
	return out
}

// gatherOwners reads the runtimes of every kind and the Datasets from the
// cache.
func (s *Sweeper) gatherOwners(ctx context.Context) (*owners, error) {
	o := &owners{uids: map[types.UID]bool{}, names: map[string]bool{}, labelKeys: map[string]bool{}}
	datasets := &datav1alpha1.DatasetList{}
	if err := s.Client.List(ctx, datasets); err != nil {
		return nil, fmt.Errorf("listing Datasets: %w", err)
	}
	datasetUID := map[string]types.UID{}
	for i := range datasets.Items {
		datasetUID[datasets.Items[i].Namespace+"/"+datasets.Items[i].Name] = datasets.Items[i].UID
	}
	keysOf := func(ns, name string) []datav1alpha1.DatasetKey {
		keys := []datav1alpha1.DatasetKey{{Namespace: ns, Name: name}}
		if uid, ok := datasetUID[ns+"/"+name]; ok {
			keys = append(keys, datav1alpha1.DatasetKey{Namespace: ns, Name: name, UID: uid})
		}
		return keys
	}
	for _, newObj := range s.kinds() {
		rts, err := s.list(ctx, newObj())
		if err != nil {
			return nil, err
		}
		for _, rt := range rts {
			o.uids[rt.GetUID()] = true
			o.names[rt.GetNamespace()+"/"+rt.GetName()] = true
			for _, k := range keysOf(rt.GetNamespace(), rt.GetName()) {
				o.labelKeys[k.CacheLabelKey()] = true
			}
		}
	}
	for typ, newObj := range s.RuntimeKinds {
		rts, err := s.list(ctx, newObj())
		if err != nil {
			return nil, err
		}
		for _, rt := range rts {
			for _, k := range keysOf(rt.GetNamespace(), rt.GetName()) {
				for _, key := range nodelabels.CacheKeys(typ, nodelabels.Suffix(k)) {
					o.labelKeys[key] = true
				}
			}
		}
	}
	return o, nil
}

// list reads every object of obj's kind from the cache.
func (s *Sweeper) list(ctx context.Context, obj client.Object) ([]client.Object, error) {
	scheme := s.Client.Scheme()
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		return nil, err
	}
	l, err := scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return nil, err
	}
	list, ok := l.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("%s is not a list", gvk.Kind+"List")
	}
	if err := s.Client.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(items))
	for _, it := range items {
		if o, ok := it.(client.Object); ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// liveRuntimes reads the runtimes of every kind named namespace/name from
// the API server and returns their UIDs: none when the name's owner is
// gone (and not only from a lagging cache).
func (s *Sweeper) liveRuntimes(ctx context.Context, namespace, name string) ([]types.UID, error) {
	var uids []types.UID
	for _, newObj := range s.kinds() {
		rt := newObj()
		err := s.Live.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, rt)
		switch {
		case err == nil:
			uids = append(uids, rt.GetUID())
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading runtime %s/%s: %w", namespace, name, err)
		}
	}
	return uids, nil
}
