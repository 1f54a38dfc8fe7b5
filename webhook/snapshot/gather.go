package snapshot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Gatherer reads the objects behind a Pod's dataset volumes.
type Gatherer struct {
	// Reader serves PVCs, PVs, Datasets, runtimes, DaemonSets and Namespaces.
	Reader client.Reader
}

// DatasetVolumes returns one entry per Pod volume whose PVC belongs to a
// dataset, in the order of the Pod's volumes. A PVC that is missing or not
// a dataset PVC is skipped; any other read error is returned.
func (g *Gatherer) DatasetVolumes(ctx context.Context, namespace string, pod *corev1.Pod) ([]DatasetVolume, error) {
	var out []DatasetVolume
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		dv, ok, err := g.datasetVolume(ctx, namespace, v)
		if err != nil {
			return nil, fmt.Errorf("volume %q: %w", v.Name, err)
		}
		if ok {
			out = append(out, dv)
		}
	}
	return out, nil
}

// Namespace returns the labels of the named namespace (none if it is not
// in the cache).
func (g *Gatherer) Namespace(ctx context.Context, name string) (Namespace, error) {
	ns := &corev1.Namespace{}
	if err := g.Reader.Get(ctx, types.NamespacedName{Name: name}, ns); err != nil {
		if apierrors.IsNotFound(err) {
			return Namespace{Name: name, Labels: map[string]string{}}, nil
		}
		return Namespace{}, fmt.Errorf("namespace %q: %w", name, err)
	}
	return Namespace{Name: name, Labels: ns.Labels}, nil
}

func (g *Gatherer) datasetVolume(ctx context.Context, namespace string, v corev1.Volume) (DatasetVolume, bool, error) {
	pvc := &corev1.PersistentVolumeClaim{}
	if err := g.Reader.Get(ctx, types.NamespacedName{Namespace: namespace, Name: v.PersistentVolumeClaim.ClaimName}, pvc); err != nil {
		if apierrors.IsNotFound(err) {
			return DatasetVolume{}, false, nil
		}
		return DatasetVolume{}, false, err
	}
	dsKey, ok := DatasetOfClaim(pvc)
	if !ok {
		return DatasetVolume{}, false, nil
	}
	dv := DatasetVolume{Volume: v.Name, Claim: pvc.Name, Dataset: DatasetFacts{Namespace: dsKey.Namespace, Name: dsKey.Name}}
	ds := &datav1alpha1.Dataset{}
	switch err := g.Reader.Get(ctx, dsKey, ds); {
	case apierrors.IsNotFound(err):
		return dv, true, nil // no such dataset: phase "" tells the policies
	case err != nil:
		return DatasetVolume{}, false, err
	}
	key := datav1alpha1.KeyOf(ds)
	dv.Dataset.Phase = string(ds.Status.Phase)
	dv.Dataset.Labels = DatasetLabels{Cache: key.CacheLabelKey(), Fuse: key.FuseLabelKey()}
	if err := g.fillVolume(ctx, pvc, &dv.Dataset.Volume); err != nil {
		return DatasetVolume{}, false, err
	}
	if len(ds.Status.Runtimes) > 0 {
		tmpl, err := g.fillRuntime(ctx, ds.Status.Runtimes[0], &dv.Dataset.Runtime)
		if err != nil {
			return DatasetVolume{}, false, err
		}
		dv.Fuse = tmpl
	}
	return dv, true, nil
}

// DatasetOfClaim returns the dataset a PVC belongs to: the one named by its
// dataset.sluice.io labels, or, for PVCs labelled the Fluid way
// (fluid.io/dataset-id=<ns>-<name>), the dataset of the PVC's own name and
// namespace.
func DatasetOfClaim(pvc *corev1.PersistentVolumeClaim) (types.NamespacedName, bool) {
	l := pvc.Labels
	if ns, name := l[datav1alpha1.LabelDatasetNamespace], l[datav1alpha1.LabelDatasetName]; ns != "" && name != "" {
		return types.NamespacedName{Namespace: ns, Name: name}, true
	}
	if id := l[datav1alpha1.LabelDatasetID]; id != "" && id == pvc.Namespace+"-"+pvc.Name {
		return types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}, true
	}
	return types.NamespacedName{}, false
}

func (g *Gatherer) fillVolume(ctx context.Context, pvc *corev1.PersistentVolumeClaim, out *VolumeFacts) error {
	if pvc.Spec.VolumeName == "" {
		return nil
	}
	pv := &corev1.PersistentVolume{}
	if err := g.Reader.Get(ctx, types.NamespacedName{Name: pvc.Spec.VolumeName}, pv); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("persistent volume %q: %w", pvc.Spec.VolumeName, err)
	}
	if pv.Spec.CSI == nil {
		return nil
	}
	attrs := pv.Spec.CSI.VolumeAttributes
	*out = VolumeFacts{
		FluidPath: attrs[datav1alpha1.VolumeAttrFluidPath],
		SubPath:   attrs[datav1alpha1.VolumeAttrSubPath],
		MountType: attrs[datav1alpha1.VolumeAttrMountType],
	}
	return nil
}

// runtimeKinds maps a runtime type, as recorded in a Dataset's
// status.runtimes, to a new object of its kind.
var runtimeKinds = map[string]func() client.Object{
	"alluxio": func() client.Object { return &datav1alpha1.AlluxioRuntime{} },
	"juicefs": func() client.Object { return &datav1alpha1.JuiceFSRuntime{} },
	"jindo":   func() client.Object { return &datav1alpha1.JindoRuntime{} },
	"thin":    func() client.Object { return &datav1alpha1.ThinRuntime{} },
}

// RuntimeTypes returns the runtime types the webhook understands, sorted.
func RuntimeTypes() []string {
	out := make([]string, 0, len(runtimeKinds))
	for t := range runtimeKinds {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func (g *Gatherer) fillRuntime(ctx context.Context, ref datav1alpha1.Runtime, out *RuntimeFacts) (*FuseTemplate, error) {
	*out = RuntimeFacts{Type: strings.ToLower(ref.Type), Name: ref.Name, Namespace: ref.Namespace, FuseNodeSelector: map[string]string{}}
	newObj, ok := runtimeKinds[out.Type]
	if !ok {
		return nil, nil
	}
	rt := newObj()
	if err := g.Reader.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, rt); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s runtime %s/%s: %w", out.Type, ref.Namespace, ref.Name, err)
	}
	sel, status := runtimeFuseSelector(rt)
	if len(sel) > 0 {
		out.FuseNodeSelector = sel
	}
	out.CacheAffinity = status.CacheAffinity
	ds := &appsv1.DaemonSet{}
	if err := g.Reader.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name + datav1alpha1.FuseDaemonSetSuffix}, ds); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("FUSE daemonset of %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if len(ds.Spec.Template.Spec.Containers) == 0 {
		return nil, nil
	}
	out.Fuse = true
	return fuseTemplate(&ds.Spec.Template.Spec), nil
}

func runtimeFuseSelector(rt client.Object) (map[string]string, *datav1alpha1.RuntimeStatus) {
	switch r := rt.(type) {
	case *datav1alpha1.AlluxioRuntime:
		return r.Spec.Fuse.NodeSelector, &r.Status
	case *datav1alpha1.JuiceFSRuntime:
		return r.Spec.Fuse.NodeSelector, &r.Status
	case *datav1alpha1.JindoRuntime:
		return r.Spec.Fuse.NodeSelector, &r.Status
	case *datav1alpha1.ThinRuntime:
		return r.Spec.Fuse.NodeSelector, &r.Status
	}
	return nil, &datav1alpha1.RuntimeStatus{}
}

// fuseTemplate returns the first container of a FUSE pod spec and the
// volumes it mounts.
func fuseTemplate(spec *corev1.PodSpec) *FuseTemplate {
	c := spec.Containers[0]
	used := map[string]bool{}
	for _, m := range c.VolumeMounts {
		used[m.Name] = true
	}
	for _, d := range c.VolumeDevices {
		used[d.Name] = true
	}
	t := &FuseTemplate{Container: *c.DeepCopy()}
	for _, v := range spec.Volumes {
		if used[v.Name] {
			t.Volumes = append(t.Volumes, *v.DeepCopy())
		}
	}
	return t
}
