package validating

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/internal/optional"
	"github.com/sluice-data/sluice/trust/guards"
)

// Gatherer computes Facts, reading related objects through Reader (the
// webhook's cache).
type Gatherer struct {
	Reader client.Reader
}

// Facts gathers the facts about obj (and old, on UPDATE). withUsage asks for
// the namespace's cache usage, which lists its runtimes; the pipeline asks
// only when a budget applies.
func (g *Gatherer) Facts(ctx context.Context, kind string, obj, old client.Object, withUsage bool) (Facts, error) {
	var f Facts
	switch {
	case kind == "Dataset":
		ds := obj.(*datav1alpha1.Dataset)
		f.Mounts = mountFacts(ds.Spec.Mounts)
		f.Guards = guards.OfUpdate(obj, old)
		t, rt, err := g.datasetRuntime(ctx, ds)
		if err != nil {
			return f, err
		}
		if rt != nil {
			f.Fields = fieldsOf(ds, old, t.Dataset.Check)
		}
		if f.Reference, err = g.referenceFacts(ctx, ds); err != nil {
			return f, err
		}
		if oldDS, ok := old.(*datav1alpha1.Dataset); ok {
			_, f.WasReference, _ = datav1alpha1.ReferenceOf(oldDS)
			f.MountsChanged = mountsChanged(oldDS, ds)
			for _, h := range claim.Holders(oldDS) {
				f.Holders = append(f.Holders, h.String())
			}
			if rt != nil {
				f.MountEdits = mountEdits(t.Mounts, oldDS, ds, rt)
			}
		}
	case isRuntimeKind(kind):
		f, err := g.runtimeFacts(ctx, kind, obj, old, withUsage)
		// A ThinRuntime without a profile serves a reference dataset, and
		// none of its fields acts (registry.FieldsOf).
		fields, _ := registry.FieldsOf(kind, obj)
		f.Fields = fieldsOf(obj, old, fields.Check)
		if err != nil {
			return f, err
		}
		f.Guards = guards.OfUpdate(obj, old)
		if rt, ok := obj.(*datav1alpha1.ThinRuntime); ok {
			oldRT, _ := old.(*datav1alpha1.ThinRuntime)
			f.Guards.Thin, err = g.thinGuards(ctx, rt, oldRT)
		}
		return f, err
	case kind == "ThinRuntimeProfile":
		f.Fields = fieldsOf(obj, old, func(o any) []engines.Finding { return fieldFacts(kind, o) })
	default:
		f, err := g.operationFacts(ctx, obj)
		f.Guards = guards.OfUpdate(obj, old)
		return f, err
	}
	return f, nil
}

func (g *Gatherer) runtimeFacts(ctx context.Context, kind string, obj, old client.Object, withUsage bool) (Facts, error) {
	var f Facts
	replicas, ts, mem, _ := runtimeParts(obj)
	f.Replicas, f.Levels, f.WorkerMemoryLimitBytes = int64(replicas), levelFacts(ts), mem
	f.OptionCaches = optionCaches(obj)
	if old != nil {
		_, oldTS, _, _ := runtimeParts(old)
		f.OldLevels = levelFacts(oldTS)
	}
	ns, name := obj.GetNamespace(), obj.GetName()
	ds := &datav1alpha1.Dataset{}
	if found, err := g.get(ctx, types.NamespacedName{Namespace: ns, Name: name}, ds); err != nil {
		return f, err
	} else if found {
		if ds.Status.Phase != datav1alpha1.NoneDatasetPhase && ds.Status.Phase != datav1alpha1.NotBoundDatasetPhase {
			for _, r := range ds.Status.Runtimes {
				f.Bound = f.Bound || r.Name == name
			}
		}
		if _, isRef, _ := datav1alpha1.ReferenceOf(ds); isRef {
			f.DatasetReference = ds.Spec.Mounts[0].MountPoint
		}
	}
	for _, other := range datav1alpha1.RuntimeKinds() {
		if other.Kind == kind {
			continue
		}
		rt, _ := datav1alpha1.NewRuntime(other.Kind)
		if found, err := g.get(ctx, types.NamespacedName{Namespace: ns, Name: name}, rt); err != nil {
			return f, err
		} else if found {
			f.SameNameRuntimes = append(f.SameNameRuntimes, other.Kind)
		}
	}
	if withUsage {
		f.NamespaceUsage = map[string]int64{}
		for _, k := range datav1alpha1.RuntimeKinds() {
			list, _ := datav1alpha1.NewRuntimeList(k.Kind)
			if err := g.Reader.List(ctx, list, client.InNamespace(ns)); err != nil {
				return f, fmt.Errorf("listing %s in %s: %w", k.Kind, ns, err)
			}
			for _, o := range list.GetRuntimes() {
				if k.Kind == kind && o.GetName() == name {
					continue // the object's own share comes from the new spec
				}
				usage(f.NamespaceUsage, o)
			}
		}
	}
	return f, nil
}

func (g *Gatherer) get(ctx context.Context, key types.NamespacedName, obj client.Object) (bool, error) {
	return optional.Get(ctx, g.Reader, key, obj)
}

func (g *Gatherer) operationExists(ctx context.Context, namespace string, ref *datav1alpha1.OperationRef) (bool, error) {
	op, ok := datav1alpha1.NewOperation(string(ref.Kind))
	if !ok {
		return false, nil
	}
	if ref.Namespace != "" {
		namespace = ref.Namespace
	}
	return g.get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, op)
}

// fieldFacts are the refused and warned fields obj sets, by its kind's
// field table.
func fieldFacts(kind string, obj any) []engines.Finding {
	table, ok := registry.ForKind(kind)
	if !ok {
		return nil
	}
	return table.Check(obj)
}

// datasetRuntime is the runtime of the Dataset's name, with its kind's
// field table; nil when none exists.
func (g *Gatherer) datasetRuntime(ctx context.Context, ds *datav1alpha1.Dataset) (registry.Table, datav1alpha1.RuntimeObject, error) {
	for _, t := range registry.All {
		rt, ok := datav1alpha1.NewRuntime(t.Kind)
		if !ok || t.Dataset == nil {
			continue
		}
		found, err := g.get(ctx, types.NamespacedName{Namespace: ds.Namespace, Name: ds.Name}, rt)
		if err != nil {
			return t, nil, err
		}
		if found {
			return t, rt, nil
		}
	}
	return registry.Table{}, nil, nil
}

// mountEdits are the changes of a Dataset's mounts that the engine of its
// runtime rt cannot apply (its MountChecker; none without one): compared
// with the mounts rt has applied (its status.mounts) or, when it has
// recorded none, with the Dataset as it was. Only a Dataset bound to rt
// is checked: before it binds, the engine reads the mounts afresh.
func mountEdits(mc engines.MountChecker, old, ds *datav1alpha1.Dataset, rt datav1alpha1.RuntimeObject) []engines.Finding {
	if mc == nil || !slices.ContainsFunc(old.Status.Runtimes, func(r datav1alpha1.Runtime) bool { return r.Name == rt.GetName() }) {
		return nil
	}
	applied := rt.GetRuntimeStatus().Mounts
	if applied == nil {
		applied = engines.EffectiveMounts(old)
	}
	return mc.CheckMountEdit(applied, ds)
}

// isRuntimeKind says whether kind is a runtime kind.
func isRuntimeKind(kind string) bool {
	_, ok := datav1alpha1.NewRuntime(kind)
	return ok
}
