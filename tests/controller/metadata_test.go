package controller_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/engines/workloads/ufsmeta"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// juicefsUsagePage is a JuiceFS client's /metrics page with the volume's
// used space and inodes, and a block cache of cached bytes.
func juicefsUsagePage(used, inodes, cached int64) string {
	return fmt.Sprintf(`# TYPE juicefs_used_space gauge
juicefs_used_space{mp="/m",vol_name="v"} %d
# TYPE juicefs_used_inodes gauge
juicefs_used_inodes{mp="/m",vol_name="v"} %d
`, used, inodes) + juicefsMetrics(int(cached), 0, 0)
}

// TestJuiceFSUsageFromTheWorkersMetrics: a bound JuiceFS Dataset's ufsTotal
// and fileNum are read from its workers' metrics pages (the volume's used
// space and inodes), follow them as they change, and give the cached
// percentage (the FUSE client's cached bytes of ufsTotal). No metadata Job
// runs.
func TestJuiceFSUsageFromTheWorkersMetrics(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := types.NamespacedName{Namespace: ns, Name: "mnist"}
	if err := env.Client.Create(ctx, testobj.Dataset("mnist", ns, testobj.WithMounts("juicefs:///mnist"))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("mnist", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	var page atomic.Value
	page.Store(juicefsUsagePage(4<<30, 1152, 1<<30))
	port := servePageFunc(t, "/metrics", func() string { return page.Load().(string) })
	usage := juicefs.Engine{}.UFSMetadata(rt).Pages
	cache, _ := juicefs.Engine{}.CacheMetrics(rt)
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "mnist-worker"}, sts) == nil
	})
	metricsPod(t, ns, "mnist-worker-0", usage.Selector, port)
	metricsPod(t, ns, "mnist-fuse-a", cache.Selector, port)
	markReady(t, sts)

	ds := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset shows the volume's usage and the cached percentage", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && ds.Status.UfsTotal == "4.00GiB" && ds.Status.FileNum == "1152" &&
			ds.Status.CacheStates[datav1alpha1.CachedPercentage] == "25.0%"
	})
	page.Store(juicefsUsagePage(8<<30, 2000, 1<<30))
	eventually(t, 20*time.Second, "the Dataset follows the usage", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && ds.Status.UfsTotal == "8.00GiB" && ds.Status.FileNum == "2000" &&
			ds.Status.CacheStates[datav1alpha1.CachedPercentage] == "12.5%"
	})
	jobs := &batchv1.JobList{}
	if err := env.Client.List(ctx, jobs, client.InNamespace(ns)); err != nil || len(jobs.Items) != 0 {
		t.Errorf("jobs %v, %v: an engine whose metrics report the usage runs no metadata Job", jobs.Items, err)
	}
}

// servePageFunc serves body() at path (404 anywhere else) and returns the
// local port it listens on.
func servePageFunc(t *testing.T, path string, body func() string) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		_, _ = fmt.Fprint(w, body())
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	return p
}

// createAlluxio creates a Dataset and its AlluxioRuntime (autoSync as given,
// nil: unset) and readies its masters and workers.
func createAlluxio(t *testing.T, ns, name string, autoSync *bool) *datav1alpha1.AlluxioRuntime {
	t.Helper()
	ctx := testenv.Context(t)
	if err := env.Client.Create(ctx, testobj.Dataset(name, ns, testobj.WithMounts("s3://bucket/"+name))); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: datav1alpha1.AlluxioRuntimeSpec{
		Replicas: 1, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "2Gi")}}}}
	rt.Spec.Management.MetadataSyncPolicy.AutoSync = autoSync
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	readyMastersAndWorkers(t, ns, name)
	return rt
}

// metadataJobOf waits for the Dataset's metadata Job and returns it.
func metadataJobOf(t *testing.T, ns, name string) *batchv1.Job {
	t.Helper()
	job := &batchv1.Job{}
	eventually(t, 20*time.Second, "the controller creates the metadata Job", func() bool {
		return env.Client.Get(testenv.Context(t), types.NamespacedName{Namespace: ns, Name: name + "-ufs-metadata"}, job) == nil
	})
	return job
}

// runJobPod plays the Job controller and the kubelet, which these tests do
// not run: it creates the Job's pod from its template, owned by the Job,
// and records it as ended with the counting container's exit code and
// termination message. The message is the container's part: what `sluice
// ufs-count` writes to /dev/termination-log and the kubelet copies into the
// pod's status.
func runJobPod(t *testing.T, job *batchv1.Job, name string, exit int32, message string) {
	t.Helper()
	ctx := testenv.Context(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: job.Namespace, Labels: job.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}},
		Spec: *job.Spec.Template.Spec.DeepCopy(),
	}
	pod.Spec.NodeName = "node-a"
	if err := env.Client.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	phase := corev1.PodSucceeded
	if exit != 0 {
		phase = corev1.PodFailed
	}
	now := metav1.Now()
	pod.Status = corev1.PodStatus{Phase: phase, StartTime: &now, ContainerStatuses: []corev1.ContainerStatus{{
		Name: ufsmeta.Container, Image: pod.Spec.Containers[0].Image, ImageID: "sha256:0", ContainerID: "containerd://0",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Message: message, StartedAt: now, FinishedAt: now}},
	}}}
	if err := env.Client.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
}

// eventsAbout lists the events about an object of the kind and name, one
// "<type> <reason>/<action>: <note>" line each.
func eventsAbout(t *testing.T, ns, kind, name string) string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := env.Client.List(testenv.Context(t), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range list.Items {
		if e.Regarding.Kind == kind && e.Regarding.Name == name {
			fmt.Fprintf(&b, "%s %s/%s: %s\n", e.Type, e.Reason, e.Action, e.Note)
		}
	}
	return b.String()
}

// TestAlluxioMetadataJobCountsTheDataset: Alluxio's metrics carry no
// dataset size, so once the Dataset is bound the controller creates its
// metadata Job (owned by the runtime, labelled for the admission policy,
// an argv running `sluice ufs-count` on the read-only PVC) and shows
// [Calculating] as Fluid does; the result the pod's container writes as
// its termination message becomes ufsTotal and fileNum, and the Job is
// deleted. Deleting the runtime while a Job runs deletes that Job.
//
// Run beside the other tests it once showed a second Job started right
// after the count (the controller's cache still showed the Dataset
// Calculating after the Job was deleted); the reconciler now remembers
// which Dataset it counted (metadataRecord.counted), and the test checks
// that no second Job appears.
func TestAlluxioMetadataJobCountsTheDataset(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := types.NamespacedName{Namespace: ns, Name: "coco"}
	rt := createAlluxio(t, ns, "coco", nil)
	job := metadataJobOf(t, ns, "coco")
	if ref := metav1.GetControllerOf(job); ref == nil || ref.UID != rt.UID || ref.Kind != "AlluxioRuntime" {
		t.Errorf("metadata Job owner %+v, want the runtime", ref)
	}
	if job.Labels["fluid.io/dataset"] != ns+"-coco" || job.Labels["app.kubernetes.io/managed-by"] != "sluice" {
		t.Errorf("metadata Job labels %v", job.Labels)
	}
	if c := job.Spec.Template.Spec.Containers[0]; c.Image != metadataImage || strings.Join(c.Command, " ") != "/sluice ufs-count --result-file=/dev/termination-log /dataset" {
		t.Errorf("metadata container %s %q", c.Image, c.Command)
	}
	ds := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset shows [Calculating]", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && ds.Status.UfsTotal == cacheruntime.Calculating && ds.Status.FileNum == cacheruntime.Calculating
	})

	runJobPod(t, job, "coco-ufs-metadata-abcde", 0, ufsmeta.Message(engines.UFSUsage{Bytes: 3 << 30, Files: 42}))
	eventually(t, 20*time.Second, "the pod's result reaches the Dataset", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && ds.Status.UfsTotal == "3.00GiB" && ds.Status.FileNum == "42"
	})
	eventually(t, 20*time.Second, "the read Job is deleted", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: job.Name}, &batchv1.Job{}))
	})
	// Counted: no new Job until the refresh interval (an hour) passes.
	time.Sleep(3 * time.Second)
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: job.Name}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("a second metadata Job right after the count: %v", err)
	}

	// A DataLoad with loadMetadata that completes (its loader Job, which
	// the DataLoad reconciler installs, finished) asks for a new count.
	dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "warm"}}
	dl.Spec.Dataset.Name, dl.Spec.LoadMetadata = "coco", true
	if err := env.Client.Create(ctx, dl); err != nil {
		t.Fatal(err)
	}
	loader := types.NamespacedName{Namespace: ns, Name: operation.ReleaseName(datav1alpha1.DataLoadKind, "warm")}
	eventually(t, 20*time.Second, "the DataLoad's loader Job is created", func() bool { return env.Client.Get(ctx, loader, &batchv1.Job{}) == nil })
	completeJob(t, loader)
	t.Cleanup(func() {
		if t.Failed() {
			_ = env.Client.Get(ctx, client.ObjectKeyFromObject(dl), dl)
			j := &batchv1.Job{}
			_ = env.Client.Get(ctx, loader, j)
			t.Logf("DataLoad status %+v; loader Job status %+v", dl.Status, j.Status)
		}
	})
	eventually(t, 20*time.Second, "the DataLoad completes", func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(dl), dl) == nil && dl.Status.Phase == datav1alpha1.PhaseComplete
	})
	again := metadataJobOf(t, ns, "coco")
	if again.UID == job.UID {
		t.Fatal("the old Job is still there")
	}
	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the runtime's deletion deletes its running metadata Job", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: again.Name}, &batchv1.Job{}))
	})
	finishJob(t, freeJobOf(t, ns, "coco"), "", "") // the cache cleanup's free Job: Alluxio's masters run
	eventually(t, 30*time.Second, "the Dataset forgets the runtime's counts", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && ds.Status.Phase == datav1alpha1.NotBoundDatasetPhase && ds.Status.UfsTotal == "" && ds.Status.FileNum == ""
	})
}

// completeJob stands in for the Job controller: it marks the Job complete.
func completeJob(t *testing.T, key types.NamespacedName) {
	t.Helper()
	ctx := testenv.Context(t)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		job := &batchv1.Job{}
		if err := env.Client.Get(ctx, key, job); err != nil {
			return err
		}
		now := metav1.Now()
		start := metav1.NewTime(now.Add(-time.Second))
		job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &start, &now, 1
		job.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now},
		}
		return env.Client.Status().Update(ctx, job)
	})
	if err != nil {
		t.Fatalf("completing Job %s: %v", key, err)
	}
}

// TestAFailedMetadataJobIsReported: a metadata Job that fails (here its
// deadline passed after its pod failed) is reported in a Warning event with
// the pod's message, deleted, and not retried at once; the Dataset keeps
// [Calculating].
func TestAFailedMetadataJobIsReported(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	createAlluxio(t, ns, "imgs", nil)
	job := metadataJobOf(t, ns, "imgs")
	runJobPod(t, job, "imgs-ufs-metadata-x1", 1, "Error: counting /dataset: open /dataset/private: permission denied\n")
	now := metav1.Now()
	job.Status = batchv1.JobStatus{StartTime: &now, Failed: 1, Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
	}}
	if err := env.Client.Status().Update(ctx, job); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the failure is reported", func() bool {
		notes := eventsAbout(t, ns, "AlluxioRuntime", "imgs")
		return strings.Contains(notes, "Warning MetadataSyncFailed/SyncMetadata: counting the files of Dataset "+ns+"/imgs: the Job failed (BackoffLimitExceeded)") &&
			strings.Contains(notes, "permission denied")
	})
	eventually(t, 20*time.Second, "the failed Job is deleted", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: job.Name}, &batchv1.Job{}))
	})
	time.Sleep(3 * time.Second)
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: job.Name}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("a failed metadata Job is retried at once: %v", err)
	}
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "imgs"}, ds); err != nil || ds.Status.UfsTotal != cacheruntime.Calculating {
		t.Errorf("ufsTotal %q after the failure (%v), want %s", ds.Status.UfsTotal, err, cacheruntime.Calculating)
	}
}

// TestMetadataSyncOffRunsNoJob: with autoSync false the controller neither
// counts the Dataset nor touches its ufsTotal; a Job of the metadata Job's
// name that Sluice did not create is neither read nor deleted when sync is
// on.
func TestMetadataSyncOffRunsNoJob(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	createAlluxio(t, ns, "off", ptr.To(false))
	key := types.NamespacedName{Namespace: ns, Name: "off"}
	ds := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset is Bound", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	time.Sleep(3 * time.Second)
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "off-ufs-metadata"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("autoSync false: a metadata Job (%v)", err)
	}
	if err := env.Client.Get(ctx, key, ds); err != nil || ds.Status.UfsTotal != "" || ds.Status.FileNum != "" {
		t.Errorf("autoSync false: ufsTotal %q, fileNum %q (%v)", ds.Status.UfsTotal, ds.Status.FileNum, err)
	}

	// Someone else's Job holds the metadata Job's name of another Dataset.
	foreign := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "theirs-ufs-metadata"}, Spec: batchv1.JobSpec{
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}
	if err := env.Client.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	createAlluxio(t, ns, "theirs", nil)
	eventually(t, 20*time.Second, "the conflict is reported", func() bool {
		return strings.Contains(eventsAbout(t, ns, "AlluxioRuntime", "theirs"), "Warning MetadataJobConflict/SyncMetadata: Job "+ns+"/theirs-ufs-metadata exists and was not created by Sluice")
	})
	got := &batchv1.Job{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(foreign), got); err != nil || got.UID != foreign.UID || !got.DeletionTimestamp.IsZero() {
		t.Errorf("the foreign Job was touched: %v %+v", err, got.ObjectMeta)
	}
}
