package snapshot

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/internal/optional"
)

// Gatherer reads the objects behind a Pod's dataset volumes.
type Gatherer struct {
	// Reader serves PVCs, PVs, Datasets, runtimes, DaemonSets and Namespaces.
	Reader client.Reader
	// Changes, when it tracks the informers behind Reader, lets a dataset
	// volume be reused without reading its objects again while none of
	// them has changed.
	Changes *Changes
	// Live, when set, reads from the API server the PVC of a Pod that
	// asked for injection when Reader does not show it as a dataset's
	// (cacheLag).
	Live client.Reader
	// Wrapped serves the PVCs a Dataset wraps (labelled
	// datav1alpha1.LabelWrappedByDataset), which Reader may not hold (the
	// webhook's main cache holds dataset PVCs only); nil reads them from
	// Reader.
	Wrapped client.Reader
	// Records is the namespace of the controller's FUSE records
	// (datav1alpha1.FuseRecord), the source of the FUSE template of a
	// runtime serving another namespace's Pod; empty, such a volume has
	// none (FuseRecord false).
	Records string

	memo       volumeMemo
	tracked    trackedMemo
	namespaces namespaceMemo
}

// DatasetVolumes returns one entry per Pod volume whose PVC belongs to a
// dataset, in the order of the Pod's volumes. A PVC that is missing or not
// a dataset PVC is skipped; any other read error is returned, and so is a
// dataset PVC of a Pod that asked for injection that the cache does not
// show yet (cacheLag).
func (g *Gatherer) DatasetVolumes(ctx context.Context, namespace string, pod *corev1.Pod) ([]DatasetVolume, error) {
	var out []DatasetVolume
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		dv, ok, err := g.datasetVolume(ctx, namespace, v)
		if err == nil && !ok && datav1alpha1.AskedForInjection(pod.Labels) {
			err = g.cacheLag(ctx, types.NamespacedName{Namespace: namespace, Name: v.PersistentVolumeClaim.ClaimName})
		}
		if err != nil {
			return nil, fmt.Errorf("volume %q: %w", v.Name, err)
		}
		if ok {
			out = append(out, dv)
		}
	}
	return out, nil
}

// cacheLag is an error when the API server holds the PVC as a dataset's
// while the cache did not show it so (it was created a moment ago): a Pod
// that asked for injection must then not be admitted unmutated, and its
// creation is refused, to be retried.
func (g *Gatherer) cacheLag(ctx context.Context, key types.NamespacedName) error {
	if g.Live == nil {
		return nil
	}
	pvc := &corev1.PersistentVolumeClaim{}
	found, err := optional.Get(ctx, g.Live, key, pvc)
	if err != nil || !found {
		return err
	}
	if ds, ok := DatasetOfClaim(pvc); ok {
		return fmt.Errorf("PVC %s belongs to dataset %s, but the webhook does not see it yet; retry in a moment", key, ds)
	}
	return nil
}

// Namespace returns the labels of the named namespace (none if it is not
// in the cache). The result is shared (its labels may be the cache's own
// map) and must not be modified.
func (g *Gatherer) Namespace(ctx context.Context, name string) (Namespace, error) {
	ns := &corev1.Namespace{}
	if err := g.Reader.Get(ctx, types.NamespacedName{Name: name}, ns); err != nil {
		if apierrors.IsNotFound(err) {
			return Namespace{Name: name, Labels: map[string]string{}}, nil
		}
		return Namespace{}, fmt.Errorf("namespace %q: %w", name, err)
	}
	if ns.ResourceVersion == "" {
		return Namespace{Name: name, Labels: ns.Labels}, nil
	}
	if e, ok := g.namespaces.get(name); ok && e.uid == string(ns.UID) && e.resourceVersion == ns.ResourceVersion {
		return e.ns, nil
	}
	n := Namespace{Name: name, Labels: ns.Labels, value: &lazyValue{}}
	g.namespaces.put(name, namespaceEntry{uid: string(ns.UID), resourceVersion: ns.ResourceVersion, ns: n}, memoFloor)
	return n, nil
}

// sources are the objects a dataset volume's facts come from; a nil or
// zero object was not found.
type sources struct {
	pvc *corev1.PersistentVolumeClaim
	// wrapped is the Pod's PVC when a Dataset wraps it (wrap.go); pvc is
	// then that Dataset's own PVC.
	wrapped *corev1.PersistentVolumeClaim
	dataset *datav1alpha1.Dataset
	pv      *corev1.PersistentVolume
	runtime client.Object
	fuse    *appsv1.DaemonSet
	// record is the runtime's FUSE record, read only when the runtime is
	// of another namespace than the PVC.
	record *corev1.PodTemplate
	// reference is what a reference dataset mounts, and referenced that
	// Dataset (whose runtime and FUSE serve it), nil when not found.
	reference  *datav1alpha1.DatasetReference
	referenced *datav1alpha1.Dataset
	// migrating is the DataMigrate holding a DataMigrating Dataset, and
	// migrate that object (nil when not read or not found).
	migrating string
	migrate   *datav1alpha1.DataMigrate
	// deps are the objects read (or found missing), with their stamps
	// taken before each read, when changes are tracked; untracked is true
	// when one of them is of a kind Changes does not track.
	deps      []dependency
	untracked bool
}

// key identifies the facts built from the sources for one Pod volume. It is
// false when an object has no resource version, which makes it unsafe to
// remember.
func (s *sources) key(volume string) (string, bool) {
	var b strings.Builder
	b.WriteString(volume)
	for _, o := range []client.Object{s.pvc, s.wrapped, s.dataset, s.pv, s.runtime, s.fuse, s.record, s.referenced, s.migrate} {
		b.WriteByte('|')
		if o == nil || reflect.ValueOf(o).IsNil() {
			continue
		}
		if o.GetResourceVersion() == "" {
			return "", false
		}
		b.WriteString(string(o.GetUID()))
		b.WriteByte('@')
		b.WriteString(o.GetResourceVersion())
	}
	return b.String(), true
}

func (g *Gatherer) datasetVolume(ctx context.Context, namespace string, v corev1.Volume) (DatasetVolume, bool, error) {
	tracking := g.Changes.Tracking()
	tk := trackedKey{namespace: namespace, claim: v.PersistentVolumeClaim.ClaimName, volume: v.Name}
	if tracking {
		if e, ok := g.tracked.get(tk); ok && g.Changes.unchanged(e.deps) {
			return e.dv, e.ok, nil
		}
	}
	src := sources{pvc: &corev1.PersistentVolumeClaim{}}
	dv, ok, err := g.readVolume(ctx, namespace, v, &src, tracking)
	if err == nil && tracking && !src.untracked {
		g.tracked.put(tk, trackedEntry{dv: dv, ok: ok, deps: src.deps}, g.volumeLimit())
	}
	return dv, ok, err
}

// volumeLimit is how many dataset volumes each memo holds before it
// starts over: twice the dataset claims the tracked informers hold, and
// memoFloor at least. Every dataset in use then stays remembered however
// many the cluster has (a memo of fewer entries than the volumes Pods
// mount, taken in turn, would convert each anew), with room for a claim
// mounted under a second volume name and for versions that have changed
// since; it costs about 10.4 KiB of live heap a volume (BenchmarkAdmission's
// retained-MiB), against the informers' own copy of each dataset's
// objects.
func (g *Gatherer) volumeLimit() int {
	return max(memoFloor, 2*g.Changes.Count(&corev1.PersistentVolumeClaim{}))
}

// readVolume reads the objects behind one Pod volume into src and builds
// its dataset volume; ok is false when the PVC is missing or neither a
// dataset's nor one a Dataset wraps.
func (g *Gatherer) readVolume(ctx context.Context, namespace string, v corev1.Volume, src *sources, tracking bool) (DatasetVolume, bool, error) {
	claim := types.NamespacedName{Namespace: namespace, Name: v.PersistentVolumeClaim.ClaimName}
	found, err := g.get(ctx, claim, src.pvc, src, tracking)
	if err != nil {
		return DatasetVolume{}, false, err
	}
	dsKey, ok := types.NamespacedName{}, false
	if found {
		dsKey, ok = DatasetOfClaim(src.pvc)
	}
	if !ok {
		if dsKey, ok, err = g.readWrapped(ctx, claim, src, tracking); !ok || err != nil {
			return DatasetVolume{}, false, err
		}
	}
	if err := g.read(ctx, dsKey, src, tracking); err != nil {
		return DatasetVolume{}, false, err
	}
	key, rememberable := src.key(v.Name)
	if rememberable {
		if dv, ok := g.memo.get(key); ok {
			return dv, true, nil
		}
	}
	dv := build(v.Name, dsKey, src)
	if rememberable {
		dv.value = &lazyValue{}
		g.memo.put(key, dv, g.volumeLimit())
	}
	return dv, true, nil
}

// get reads one object; a missing object is not an error. When tracking,
// it first records the object's stamp in src.
func (g *Gatherer) get(ctx context.Context, key types.NamespacedName, obj client.Object, src *sources, tracking bool) (bool, error) {
	if tracking {
		if !g.Changes.Tracks(obj) {
			src.untracked = true
		}
		k := keyFor(obj, key)
		src.deps = append(src.deps, dependency{key: k, stamp: g.Changes.stampOf(k)})
	}
	return optional.Get(ctx, g.Reader, key, obj)
}

// read fetches the dataset, its PV, its runtime and the runtime's FUSE
// DaemonSet into src, leaving missing ones nil. For a reference dataset
// the runtime and FUSE are those of the Dataset it references, which is
// read too.
func (g *Gatherer) read(ctx context.Context, dsKey types.NamespacedName, src *sources, tracking bool) error {
	ds := &datav1alpha1.Dataset{}
	found, err := g.get(ctx, dsKey, ds, src, tracking)
	if err != nil || !found {
		return err
	}
	src.dataset = ds
	if err := g.readMigration(ctx, ds, src, tracking); err != nil {
		return err
	}
	if name := src.pvc.Spec.VolumeName; name != "" {
		pv := &corev1.PersistentVolume{}
		if found, err := g.get(ctx, types.NamespacedName{Name: name}, pv, src, tracking); err != nil {
			return err
		} else if found {
			if !pvBelongsTo(pv, dsKey) {
				// The PVC's author chose both its labels and its volumeName:
				// a PV of another dataset must not lend its FUSE path.
				return fmt.Errorf("PVC %s/%s names dataset %s but its volume %s is not that dataset's (it is labelled for %s)",
					src.pvc.Namespace, src.pvc.Name, dsKey, name, pvOwnerNote(pv))
			}
			src.pv = pv
		}
	}
	served := ds
	if r, isRef, err := datav1alpha1.ReferenceOf(ds); isRef {
		if err != nil {
			return nil // not a valid reference: its runtime does not bind it
		}
		src.reference = &r
		target := &datav1alpha1.Dataset{}
		if found, err := g.get(ctx, types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, target, src, tracking); err != nil || !found {
			return err
		}
		src.referenced, served = target, target
	}
	if len(served.Status.Runtimes) == 0 {
		return nil
	}
	ref := served.Status.Runtimes[0]
	kind, ok := datav1alpha1.RuntimeKindOfType(strings.ToLower(ref.Type))
	if !ok {
		return nil
	}
	rt, _ := datav1alpha1.NewRuntime(kind.Kind)
	if found, err := g.get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, rt, src, tracking); err != nil || !found {
		return err
	}
	src.runtime = rt
	fuse := &appsv1.DaemonSet{}
	if found, err := g.get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name + datav1alpha1.FuseDaemonSetSuffix}, fuse, src, tracking); err != nil {
		return err
	} else if found {
		src.fuse = fuse
	}
	if ref.Namespace != src.pvc.Namespace && g.Records != "" {
		record := &corev1.PodTemplate{}
		key := types.NamespacedName{Namespace: g.Records, Name: datav1alpha1.FuseRecordName(rt.GetUID())}
		if found, err := g.get(ctx, key, record, src, tracking); err != nil {
			return err
		} else if found {
			src.record = record
		}
	}
	return nil
}

// build derives a dataset volume's facts from its sources.
func build(volume string, dsKey types.NamespacedName, src *sources) DatasetVolume {
	// Every field the policies read is present even for a missing dataset,
	// so that they deny it by name instead of failing on a null.
	dv := DatasetVolume{Volume: volume, Claim: src.pvc.Name, Wrapped: src.wrapped != nil, Dataset: DatasetFacts{Namespace: dsKey.Namespace, Name: dsKey.Name,
		Localities: map[string][]corev1.NodeSelectorRequirement{}, Runtime: RuntimeFacts{FuseNodeSelector: map[string]string{}, FuseVolumes: []string{}}}}
	if src.wrapped != nil {
		dv.Claim = src.wrapped.Name
	}
	if src.dataset == nil {
		return dv // no such dataset: phase "" tells the policies
	}
	ds := src.dataset
	// served is the Dataset whose runtime, FUSE and node labels serve the
	// volume: the one a reference dataset references.
	served := ds
	if r := src.reference; r != nil {
		dv.Dataset.Reference = &ReferenceFacts{Namespace: r.Namespace, Name: r.Name, SubPath: r.SubPath, FuseSecrets: []string{}}
		if src.referenced != nil {
			served = src.referenced
			dv.Dataset.Reference.Phase = string(served.Status.Phase)
		}
	}
	key := datav1alpha1.KeyOf(served)
	dv.Dataset.Phase = string(ds.Status.Phase)
	dv.Dataset.Migration = migrationFacts(ds, src)
	dv.Dataset.Labels = DatasetLabels{Cache: key.CacheLabelKey(), Fuse: key.FuseLabelKey(), Sched: datav1alpha1.DatasetSchedLabelKey(ds.Name)}
	if src.pv != nil && src.pv.Spec.CSI != nil {
		attrs := src.pv.Spec.CSI.VolumeAttributes
		dv.Dataset.Volume = VolumeFacts{
			FluidPath: attrs[datav1alpha1.VolumeAttrFluidPath],
			SubPath:   attrs[datav1alpha1.VolumeAttrSubPath],
			MountType: attrs[datav1alpha1.VolumeAttrMountType],
			ReadOnly:  readOnlyMany(src.pv.Spec.AccessModes),
		}
	}
	if src.reference != nil && src.referenced == nil {
		return dv // the referenced Dataset does not exist: no runtime serves the volume
	}
	if len(served.Status.Runtimes) > 0 {
		ref := served.Status.Runtimes[0]
		rf := RuntimeFacts{Type: strings.ToLower(ref.Type), Name: ref.Name, Namespace: ref.Namespace, FuseNodeSelector: map[string]string{}, FuseVolumes: []string{}}
		if src.runtime != nil {
			sel, status := runtimeFuseSelector(src.runtime)
			if len(sel) > 0 {
				rf.FuseNodeSelector = sel
			}
			rf.CacheAffinity = status.CacheAffinity
			if src.fuse != nil && len(src.fuse.Spec.Template.Spec.Containers) > 0 {
				rf.Fuse = true
				if tmpl := fuseSource(src, ref.Namespace); tmpl != nil {
					rf.FuseRecord = tmpl != &src.fuse.Spec.Template.Spec
					dv.Fuse = fuseTemplate(tmpl)
					rf.FuseImage = dv.Fuse.Container.Image
					for _, v := range dv.Fuse.Volumes {
						rf.FuseVolumes = append(rf.FuseVolumes, v.Name)
					}
					if served.Namespace != ds.Namespace {
						referencedFuse(dv, ds.Name)
					}
				}
			}
		}
		dv.Dataset.Runtime = rf
	}
	dv.Dataset.Localities = localities(dv.Dataset.Labels, dv.Dataset.Runtime.CacheAffinity)
	return dv
}

// fuseSource is the pod spec a volume's FUSE sidecar is copied from: the
// runtime's FUSE DaemonSet when the runtime is in the PVC's namespace; for
// a runtime of another namespace, whose users may change that DaemonSet,
// the controller's record of the template it rendered (nil when there is
// none, and the policies refuse a sidecar: cross-namespace-sidecar-record).
func fuseSource(src *sources, runtimeNamespace string) *corev1.PodSpec {
	if runtimeNamespace == src.pvc.Namespace {
		return &src.fuse.Spec.Template.Spec
	}
	if src.record == nil || len(src.record.Template.Spec.Containers) == 0 {
		return nil
	}
	return &src.record.Template.Spec
}

// referencedFuse points the FUSE template of the Dataset a reference
// dataset of another namespace references at the copies of its ConfigMaps
// that the controller keeps in the reference dataset's namespace
// (datav1alpha1.ReferenceCopyName), and records the Secrets it reads,
// which are not copied.
func referencedFuse(dv DatasetVolume, dataset string) {
	datav1alpha1.RenameConfigMaps(&dv.Fuse.Container, dv.Fuse.Volumes, func(name string) string {
		return datav1alpha1.ReferenceCopyName(dataset, name)
	})
	if _, secrets := datav1alpha1.ObjectsReadBy(&dv.Fuse.Container, dv.Fuse.Volumes); len(secrets) > 0 {
		dv.Dataset.Reference.FuseSecrets = secrets
	}
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

// SourceKinds are the kinds of object dataset volumes are built from: the
// kinds Changes must track for a Gatherer.
func SourceKinds() []client.Object {
	out := []client.Object{&corev1.PersistentVolumeClaim{}, &corev1.PersistentVolume{}, &datav1alpha1.Dataset{}, &appsv1.DaemonSet{}, &corev1.PodTemplate{}}
	for _, k := range datav1alpha1.RuntimeKinds() {
		rt, _ := datav1alpha1.NewRuntime(k.Kind)
		out = append(out, rt)
	}
	return out
}

func runtimeFuseSelector(rt client.Object) (map[string]string, *datav1alpha1.RuntimeStatus) {
	if r, ok := rt.(datav1alpha1.RuntimeObject); ok {
		return r.GetFuseNodeSelector(), r.GetRuntimeStatus()
	}
	return nil, &datav1alpha1.RuntimeStatus{}
}

// fuseTemplate returns a copy of the first container of a FUSE pod spec and
// the volumes it mounts.
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

// readOnlyMany reports whether a PV's access modes are ReadOnlyMany only:
// the kubelet then asks the CSI plugin for a MULTI_NODE_READER_ONLY
// volume, which it mounts read-only.
func readOnlyMany(modes []corev1.PersistentVolumeAccessMode) bool {
	for _, m := range modes {
		if m != corev1.ReadOnlyMany {
			return false
		}
	}
	return len(modes) > 0
}
