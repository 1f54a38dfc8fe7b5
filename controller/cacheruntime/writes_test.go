package cacheruntime

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/fake"
	"github.com/sluice-data/sluice/engines/workloads/ufsmeta"
)

// TestStatusWrites follows the status writes of a runtime whose two workers
// start: none by the reconcile that installs the release, one when it is
// seen waiting, none for scheduling counts alone until progressEvery has
// passed, one per ready worker, and neither a second write nor a second
// event when the cache has not caught up with the controller's last write
// yet (the patch, made against the stale resourceVersion, is refused, and
// the runtime read again from the API server).
func TestStatusWrites(t *testing.T) {
	ctx := context.Background()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b", Name: "b"}}}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", UID: "rt-1"}, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 2}}
	key := types.NamespacedName{Namespace: "n", Name: "d"}

	// The cache as the reconciler sees it: the API server's objects, or,
	// while stale is set, the runtime as it was before.
	var stale *datav1alpha1.AlluxioRuntime
	var writes patches
	c, live := laggingAPI(ds, rt, &stale, &writes)
	recorder := events.NewFakeRecorder(10)
	hc := helm.NewMemoryClient("n", nil)
	now := time.Now()
	r := &Reconciler{
		Client: c, Live: live,
		Engine: fake.Engine{}, Helm: func(string) (*helm.Client, error) { return hc, nil },
		Events: recorder, now: func() time.Time { return now },
	}
	reconcile := func(what string, wantWrites int) *datav1alpha1.AlluxioRuntime {
		t.Helper()
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if writes.accepted != wantWrites {
			t.Fatalf("%s: %d status writes, want %d", what, writes.accepted, wantWrites)
		}
		got := &datav1alpha1.AlluxioRuntime{}
		if err := c.Get(ctx, key, got); err != nil && stale == nil {
			t.Fatal(err)
		}
		return got
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "d-worker"},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "d-worker"}}}}
	workers := func(ready int32) {
		t.Helper()
		sts.Status = appsv1.StatefulSetStatus{Replicas: 2, ReadyReplicas: ready, AvailableReplicas: ready}
		if err := c.Status().Update(ctx, sts); err != nil {
			t.Fatal(err)
		}
	}

	// The runtime before the controller's first status write, as a cache
	// behind that write shows it.
	unwritten := reconcile("installed", 0)
	got := reconcile("no workers yet", 1)
	if cond := meta.FindStatusCondition(got.Status.Conditions, ConditionReady); cond == nil || cond.Reason != ReasonWorkersNotReady {
		t.Fatalf("waiting runtime's condition: %+v", cond)
	}
	before := got.DeepCopy()

	if err := c.Create(ctx, sts); err != nil {
		t.Fatal(err)
	}
	workers(0)
	got = reconcile("workers scheduled, none ready", 1)
	if got.Status.DesiredWorkerNumberScheduled != 0 {
		t.Errorf("scheduling counts were written at once: %+v", got.Status)
	}

	stale = unwritten.DeepCopy()
	reconcile("the cache does not show the first write yet", 1)
	workers(1)
	reconcile("a worker is ready, the cache still lags", 2)
	stale = nil
	got = reconcile("the cache caught up", 2)
	if got.Status.WorkerNumberReady != 1 || got.Status.WorkerPhase != datav1alpha1.RuntimePhasePartialReady || got.Status.DesiredWorkerNumberScheduled != 2 {
		t.Errorf("after a worker became ready: %+v", got.Status)
	}

	// Scheduling counts that moved alone are written once progressEvery
	// has passed since the last write.
	workers(1)
	sts.Spec.Replicas = ptr.To[int32](3)
	if err := c.Update(ctx, sts); err != nil {
		t.Fatal(err)
	}
	sts.Status = appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 1, AvailableReplicas: 1}
	if err := c.Status().Update(ctx, sts); err != nil {
		t.Fatal(err)
	}
	reconcile("a third worker is scheduled", 2)
	now = now.Add(progressEvery)
	got = reconcile("progressEvery later", 3)
	if got.Status.DesiredWorkerNumberScheduled != 3 {
		t.Errorf("scheduling counts after progressEvery: %+v", got.Status)
	}

	sts.Spec.Replicas = ptr.To[int32](2)
	if err := c.Update(ctx, sts); err != nil {
		t.Fatal(err)
	}
	workers(2)
	got = reconcile("all workers ready", 4)
	if cond := meta.FindStatusCondition(got.Status.Conditions, ConditionReady); cond == nil || cond.Reason != ReasonBound {
		t.Fatalf("ready runtime's condition: %+v", cond)
	}
	stale = before.DeepCopy()
	reconcile("bound, the cache lags", 4)
	stale = nil
	reconcile("bound, steady", 4)
	// Each reconcile that saw the stale cache and had something to say had
	// one patch refused (then read the runtime afresh); none was lost.
	if writes.refused != 3 {
		t.Errorf("%d status patches refused, want 3 (one per reconcile behind the cache with a change to write)", writes.refused)
	}

	var recorded []string
drain:
	for {
		select {
		case e := <-recorder.Events:
			recorded = append(recorded, e)
		default:
			break drain
		}
	}
	bound := 0
	for _, e := range recorded {
		if strings.Contains(e, ReasonBound) {
			bound++
		}
	}
	if bound != 1 {
		t.Errorf("Bound events: %d, want 1 (%q)", bound, recorded)
	}
}

func TestProgressOnly(t *testing.T) {
	cond := []metav1.Condition{{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonWorkersNotReady}}
	a := &datav1alpha1.RuntimeStatus{Conditions: cond, WorkerPhase: datav1alpha1.RuntimePhaseNotReady}
	b := a.DeepCopy()
	b.DesiredWorkerNumberScheduled, b.CurrentWorkerNumberScheduled, b.WorkerNumberUnavailable, b.Selector = 2, 1, 2, "role=w"
	b.FusePhase, b.DesiredFuseNumberScheduled = datav1alpha1.RuntimePhaseReady, 1
	if !progressOnly(a, b) {
		t.Error("scheduling counts, selector and FUSE figures are progress")
	}
	for name, change := range map[string]func(*datav1alpha1.RuntimeStatus){
		"ready workers": func(s *datav1alpha1.RuntimeStatus) { s.WorkerNumberReady = 1 },
		"worker phase":  func(s *datav1alpha1.RuntimeStatus) { s.WorkerPhase = datav1alpha1.RuntimePhasePartialReady },
		"ready masters": func(s *datav1alpha1.RuntimeStatus) { s.MasterNumberReady = 1 },
		"condition":     func(s *datav1alpha1.RuntimeStatus) { s.Conditions[0].Reason = ReasonMastersNotReady },
		"generation":    func(s *datav1alpha1.RuntimeStatus) { s.ObservedGeneration = 2 },
	} {
		c := b.DeepCopy()
		change(c)
		if progressOnly(a, c) {
			t.Errorf("%s: written at once, not progress", name)
		}
	}
}

// TestStatusPatchWithLaggingCache: a status written while the cache still
// shows the runtime as it was before the controller's last write reaches
// the API server whole. A patch based on the stale status would leave out
// the fields whose new value equals the stale one (here the unavailable
// workers, back to 0) and keep the last write's value on the server.
func TestStatusPatchWithLaggingCache(t *testing.T) {
	ctx := context.Background()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b", Name: "b"}}}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", UID: "rt-1"}, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 1}}
	key := types.NamespacedName{Namespace: "n", Name: "d"}
	var stale *datav1alpha1.AlluxioRuntime
	c, live := laggingAPI(ds, rt, &stale, new(patches))
	hc := helm.NewMemoryClient("n", nil)
	r := &Reconciler{
		Client: c, Live: live,
		Engine: fake.Engine{}, Helm: func(string) (*helm.Client, error) { return hc, nil },
	}
	reconcile := func() {
		t.Helper()
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatal(err)
		}
	}
	reconcile() // installs
	before := &datav1alpha1.AlluxioRuntime{}
	if err := c.Get(ctx, key, before); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "d-worker"},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "d-worker"}}}}
	if err := c.Create(ctx, sts); err != nil {
		t.Fatal(err)
	}
	reconcile() // waits for the worker: one unavailable
	got := &datav1alpha1.AlluxioRuntime{}
	if err := c.Get(ctx, key, got); err != nil || got.Status.WorkerNumberUnavailable != 1 {
		t.Fatalf("waiting runtime: %+v, %v", got.Status, err)
	}

	stale = before
	sts.Status = appsv1.StatefulSetStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if err := c.Status().Update(ctx, sts); err != nil {
		t.Fatal(err)
	}
	reconcile() // Bound, while the cache shows the runtime before the first write
	stale = nil
	if err := c.Get(ctx, key, got); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(got.Status.Conditions, ConditionReady); cond == nil || cond.Reason != ReasonBound {
		t.Fatalf("condition %+v, want Bound", cond)
	}
	if got.Status.WorkerNumberUnavailable != 0 || got.Status.WorkerNumberReady != 1 {
		t.Errorf("stored status: %d workers unavailable, %d ready; want 0 and 1", got.Status.WorkerNumberUnavailable, got.Status.WorkerNumberReady)
	}
}

// patches counts the status patches of a runtime: those the API server
// accepted and those it refused (a stale resourceVersion); and those of
// its Dataset, accepted or not.
type patches struct{ accepted, refused, dataset int }

// laggingAPI is a fake API server holding ds, rt and the node node-a, and a
// cache of it that, while *stale is set, shows that runtime instead of the
// stored one (a cache behind the controller's last write); it counts the
// runtime's and the Dataset's status patches in *writes, and gives the
// objects it creates a UID, as the API server does. It returns the cache
// and the API server (the reconciler's Live reader).
func laggingAPI(ds *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime, stale **datav1alpha1.AlluxioRuntime, writes *patches) (client.Client, client.Reader) {
	api := fakeclient.NewClientBuilder().WithScheme(scheme.New()).
		WithStatusSubresource(&datav1alpha1.Dataset{}, &datav1alpha1.AlluxioRuntime{}).
		WithObjects(ds, rt, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if obj.GetUID() == "" {
					obj.SetUID(types.UID("uid-" + obj.GetName()))
				}
				return c.Create(ctx, obj, opts...)
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				err := c.SubResource(sub).Patch(ctx, obj, patch, opts...)
				switch obj.(type) {
				case *datav1alpha1.AlluxioRuntime:
					switch {
					case err == nil:
						writes.accepted++
					case apierrors.IsConflict(err):
						writes.refused++
					}
				case *datav1alpha1.Dataset:
					writes.dataset++
				}
				return err
			},
		}).Build()
	cache := interceptor.NewClient(api, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if r, ok := obj.(*datav1alpha1.AlluxioRuntime); ok && *stale != nil {
				(*stale).DeepCopyInto(r)
				return nil
			}
			return c.Get(ctx, k, obj, opts...)
		},
	})
	return cache, api
}

// TestOneStatusWritePerReconcile walks a runtime with masters and workers
// from install to bound and back to waiting, then has its Dataset's files
// counted, counting the runtime's and the Dataset's status patches in each
// reconcile: exactly one of each when its stored status changes, none when
// it does not. The engine reports cache figures from its workers' metrics
// and counts the Dataset with a metadata Job, so that binding, the cache
// states and the usage (Calculating, then the count) all change the
// Dataset's status in one reconcile.
func TestOneStatusWritePerReconcile(t *testing.T) {
	ctx := context.Background()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b", Name: "b"}}}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", UID: "rt-1"}, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 2}}
	var stale *datav1alpha1.AlluxioRuntime
	var writes patches
	c, live := laggingAPI(ds, rt, &stale, &writes)
	hc := helm.NewMemoryClient("n", nil)
	metrics := serve(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = fmt.Fprint(w, "cached 1024") })
	eng := countedEngine{Engine: fake.Engine{Master: true, Metrics: reporter("rpc", []string{"/metrics"}).(fake.Engine).Metrics}}
	r := &Reconciler{Client: c, Live: live, Engine: eng, Helm: func(string) (*helm.Client, error) { return hc, nil },
		MetadataJob: ufsmeta.Options{Image: "sluice"}}
	key := types.NamespacedName{Namespace: "n", Name: "d"}
	stored := func() (datav1alpha1.RuntimeStatus, datav1alpha1.DatasetStatus) {
		t.Helper()
		got, gotDS := &datav1alpha1.AlluxioRuntime{}, &datav1alpha1.Dataset{}
		if err := live.Get(ctx, key, got); err != nil {
			t.Fatal(err)
		}
		if err := live.Get(ctx, key, gotDS); err != nil {
			t.Fatal(err)
		}
		return got.Status, gotDS.Status
	}
	step := func(what string) {
		t.Helper()
		before, beforeDS := stored()
		n, nDS := writes.accepted+writes.refused, writes.dataset
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		after, afterDS := stored()
		want, wantDS := 0, 0
		if !equality.Semantic.DeepEqual(before, after) {
			want = 1
		}
		if !equality.Semantic.DeepEqual(beforeDS, afterDS) {
			wantDS = 1
		}
		if got := writes.accepted + writes.refused - n; got != want {
			t.Errorf("%s: %d status patches, want %d", what, got, want)
		}
		if got := writes.dataset - nDS; got != wantDS {
			t.Errorf("%s: %d Dataset status patches, want %d", what, got, wantDS)
		}
	}
	sts := func(name string, replicas, ready int32) {
		t.Helper()
		s := &appsv1.StatefulSet{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "n", Name: name}, s); err != nil {
			s = &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: name, Annotations: map[string]string{helm.ReleaseNameAnnotation: "d"}},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": name}}}}
			if err := c.Create(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		s.Status = appsv1.StatefulSetStatus{Replicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready}
		if err := c.Status().Update(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	step("install")
	step("waiting for masters")
	step("still waiting for masters")
	sts("d-master", 1, 1)
	step("masters ready")
	sts("d-worker", 2, 1)
	step("one worker ready")
	step("no change")
	workerPod(t, c, "d-worker", metrics)
	sts("d-worker", 2, 2)
	step("bound") // with the first cache figures, Calculating, and the metadata Job started
	if _, dsStatus := stored(); dsStatus.Phase != datav1alpha1.BoundDatasetPhase || dsStatus.UfsTotal != Calculating || dsStatus.CacheStates[datav1alpha1.Cached] != "1KiB" {
		t.Fatalf("Dataset status when bound: %+v; want Bound, Calculating, 1KiB cached", dsStatus)
	}
	step("bound, steady")
	sts("d-worker", 2, 1)
	step("a worker lost")
	step("a worker lost, steady")
	if writes.accepted != 5 || writes.refused != 0 {
		t.Errorf("%d status writes (%d refused), want 5 and none refused", writes.accepted, writes.refused)
	}
	sts("d-worker", 2, 2)
	step("the worker back")
	countedBy(t, c, ufsmeta.JobName(ds), engines.UFSUsage{Bytes: 4096, Files: 3})
	step("counted") // the usage, and the cached percentage it gives
	if _, dsStatus := stored(); dsStatus.UfsTotal != "4.00KiB" || dsStatus.FileNum != "3" || dsStatus.CacheStates[datav1alpha1.CachedPercentage] != "25.0%" {
		t.Fatalf("Dataset status once counted: %+v; want 4.00KiB in 3 files, 25.0%% cached", dsStatus)
	}
	step("counted, steady")
}

// countedEngine is the fake engine whose Datasets a metadata Job counts.
type countedEngine struct{ fake.Engine }

func (countedEngine) UFSMetadata(client.Object) engines.MetadataSource {
	return engines.MetadataSource{Sync: true}
}

// workerPod is a running pod of the StatefulSet sts serving cache metrics
// at port (reporter's "rpc").
func workerPod(t *testing.T, c client.Client, sts string, port int32) {
	t.Helper()
	ctx := context.Background()
	owner := &appsv1.StatefulSet{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "n", Name: sts}, owner); err != nil {
		t.Fatal(err)
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: sts + "-0", Namespace: "n", Labels: map[string]string{"app": "ds"},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, appsv1.SchemeGroupVersion.WithKind("StatefulSet"))}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "w", Ports: []corev1.ContainerPort{{Name: "rpc", ContainerPort: port}}}}}}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1"}
	if err := c.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
}

// countedBy completes the metadata Job job with a pod whose result is u.
func countedBy(t *testing.T, c client.Client, job string, u engines.UFSUsage) {
	t.Helper()
	ctx := context.Background()
	j := &batchv1.Job{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "n", Name: job}, j); err != nil {
		t.Fatal(err)
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: job + "-0", Namespace: "n", Labels: j.Spec.Template.Labels,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(j, batchv1.SchemeGroupVersion.WithKind("Job"))}},
		Spec: *j.Spec.Template.Spec.DeepCopy()}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{Name: ufsmeta.Container,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Message: ufsmeta.Message(u)}}}}}
	if err := c.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
}
