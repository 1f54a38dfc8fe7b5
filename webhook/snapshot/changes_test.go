package snapshot

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// fakeInformers hands out informers that only record their handlers; the
// test delivers events itself.
type fakeInformers struct {
	handlers []toolscache.ResourceEventHandler
}

type fakeInformer struct {
	cache.Informer
	f *fakeInformers
}

func (i fakeInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	i.f.handlers = append(i.f.handlers, h)
	return nil, nil
}

func (f *fakeInformers) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return fakeInformer{f: f}, nil
}

// countingReader counts Gets.
type countingReader struct {
	client.Reader
	gets int
}

func (r *countingReader) Get(ctx context.Context, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.gets++
	return r.Reader.Get(ctx, k, obj, opts...)
}

func datasetObjects(ns, name string) []client.Object {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "1",
		Labels: map[string]string{datav1alpha1.LabelDatasetID: ns + "-" + name}}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: ns + "-" + name}}
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "1"},
		Status: datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase, Runtimes: []datav1alpha1.Runtime{{Name: name, Namespace: ns, Type: "juicefs"}}}}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name, ResourceVersion: "1", Labels: map[string]string{datav1alpha1.LabelDatasetID: ns + "-" + name}}}
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "1"}}
	fuse := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + datav1alpha1.FuseDaemonSetSuffix, ResourceVersion: "1"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "fuse", VolumeMounts: []corev1.VolumeMount{{Name: "cache-dir", MountPath: "/cache"}}}},
			Volumes:    []corev1.Volume{{Name: "cache-dir"}, {Name: "unused"}},
		}}}}
	return []client.Object{pvc, ds, pv, rt, fuse}
}

func volumePod(claim string) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data",
		VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}}}
}

func TestGathererReusesVolumesUntilASourceChanges(t *testing.T) {
	ctx := context.Background()
	objs := datasetObjects("team-a", "imagenet")
	c := fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(objs...).Build()
	r := &countingReader{Reader: c}
	inf := &fakeInformers{}
	changes := &Changes{}
	if err := changes.Track(ctx, inf, SourceKinds()...); err != nil {
		t.Fatal(err)
	}
	deliver := func(f func(h toolscache.ResourceEventHandler)) {
		for _, h := range inf.handlers {
			f(h)
		}
	}
	for _, o := range objs {
		deliver(func(h toolscache.ResourceEventHandler) { h.OnAdd(o, true) })
	}
	g := &Gatherer{Reader: r, Changes: changes}
	gather := func() DatasetVolume {
		t.Helper()
		vols, err := g.DatasetVolumes(ctx, "team-a", volumePod("imagenet"))
		if err != nil || len(vols) != 1 {
			t.Fatalf("gathered %v, %v", vols, err)
		}
		return vols[0]
	}

	first := gather()
	reads := r.gets
	if second := gather(); r.gets != reads || !second.Dataset.Runtime.Fuse {
		t.Fatalf("unchanged sources: %d more reads (want 0), fuse %v", r.gets-reads, second.Dataset.Runtime.Fuse)
	}
	if !first.Dataset.Runtime.Fuse || first.Dataset.Phase != "Bound" {
		t.Fatalf("first = %+v", first.Dataset)
	}
	if v := first.Dataset.Runtime.FuseVolumes; len(v) != 1 || v[0] != "cache-dir" {
		t.Fatalf("FUSE template volumes the policies see = %q, want the one its container mounts", v)
	}

	// Deleting the FUSE DaemonSet invalidates the volume.
	fuse := objs[4]
	if err := c.Delete(ctx, fuse); err != nil {
		t.Fatal(err)
	}
	deliver(func(h toolscache.ResourceEventHandler) { h.OnDelete(toolscache.DeletedFinalStateUnknown{Obj: fuse}) })
	if got := gather(); got.Dataset.Runtime.Fuse || got.Dataset.Runtime.FuseVolumes == nil || len(got.Dataset.Runtime.FuseVolumes) != 0 {
		t.Fatalf("the deleted FUSE DaemonSet is still seen, or its volumes are not an empty list: %+v", got.Dataset.Runtime)
	}

	// A change to the dataset invalidates it too.
	ds := objs[1].(*datav1alpha1.Dataset)
	ds.Status.Phase = datav1alpha1.NotBoundDatasetPhase
	if err := c.Update(ctx, ds); err != nil {
		t.Fatal(err)
	}
	deliver(func(h toolscache.ResourceEventHandler) { h.OnUpdate(ds, ds) })
	if got := gather(); got.Dataset.Phase != "NotBound" {
		t.Fatalf("phase %q after the dataset changed", got.Dataset.Phase)
	}
}

// A source of a kind Changes does not track is never taken as unchanged.
func TestGathererReadsAgainWhenAKindIsUntracked(t *testing.T) {
	ctx := context.Background()
	objs := datasetObjects("team-a", "imagenet")
	r := &countingReader{Reader: fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(objs...).Build()}
	changes := &Changes{}
	if err := changes.Track(ctx, &fakeInformers{}, &corev1.PersistentVolumeClaim{}, &datav1alpha1.Dataset{}); err != nil {
		t.Fatal(err)
	}
	g := &Gatherer{Reader: r, Changes: changes}
	for i := 0; i < 2; i++ {
		before := r.gets
		if _, err := g.DatasetVolumes(ctx, "team-a", volumePod("imagenet")); err != nil {
			t.Fatal(err)
		}
		if r.gets-before != 5 {
			t.Fatalf("gather %d read %d objects, want all 5", i, r.gets-before)
		}
	}
}

// The volume memos hold twice the dataset claims the informers hold, and
// memoFloor at least: an update or a second delete of a claim, or the
// delete of one never seen, does not move the count.
func TestTheVolumeMemosGrowWithTheDatasetClaims(t *testing.T) {
	inf := &fakeInformers{}
	changes := &Changes{}
	if err := changes.Track(context.Background(), inf, SourceKinds()...); err != nil {
		t.Fatal(err)
	}
	g := &Gatherer{Changes: changes}
	if got := g.volumeLimit(); got != memoFloor {
		t.Fatalf("no claims: limit %d, want %d", got, memoFloor)
	}
	claim := func(i int) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: fmt.Sprintf("c-%d", i)}}
	}
	deliver := func(f func(h toolscache.ResourceEventHandler)) {
		for _, h := range inf.handlers {
			f(h)
		}
	}
	n := memoFloor/2 + 100
	for i := range n {
		deliver(func(h toolscache.ResourceEventHandler) { h.OnAdd(claim(i), true) })
	}
	deliver(func(h toolscache.ResourceEventHandler) { h.OnUpdate(claim(0), claim(0)) })
	deliver(func(h toolscache.ResourceEventHandler) {
		h.OnAdd(&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}}, true)
	})
	if got := g.volumeLimit(); got != 2*n {
		t.Fatalf("%d claims: limit %d, want %d", n, got, 2*n)
	}
	for i := range 10 {
		deliver(func(h toolscache.ResourceEventHandler) { h.OnDelete(claim(i)) })
		deliver(func(h toolscache.ResourceEventHandler) {
			h.OnDelete(toolscache.DeletedFinalStateUnknown{Obj: claim(i)})
		})
	}
	deliver(func(h toolscache.ResourceEventHandler) { h.OnDelete(claim(n + 1)) })
	if got := g.volumeLimit(); got != 2*(n-10) {
		t.Fatalf("%d claims: limit %d, want %d", n-10, got, 2*(n-10))
	}
	if got := (*Changes)(nil).Count(&corev1.PersistentVolumeClaim{}); got != 0 {
		t.Fatalf("untracked: count %d", got)
	}
}

// A memo starts over when a put finds it at the limit it is given, and
// holds up to that limit until then.
func TestAMemoStartsOverAtItsLimit(t *testing.T) {
	var m memo[int, int]
	for i := range 5 {
		m.put(i, i, 5)
	}
	for i := range 5 {
		if v, ok := m.get(i); !ok || v != i {
			t.Fatalf("entry %d of 5 at limit 5: %v %v", i, v, ok)
		}
	}
	m.put(5, 5, 5)
	if _, ok := m.get(0); ok {
		t.Fatal("the memo kept its entries past its limit")
	}
	if v, ok := m.get(5); !ok || v != 5 {
		t.Fatalf("the entry put when starting over: %v %v", v, ok)
	}
	m.put(6, 6, 10) // a larger limit keeps what it holds
	if _, ok := m.get(5); !ok {
		t.Fatal("a put under a larger limit dropped the memo")
	}
}
