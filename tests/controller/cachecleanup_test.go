package controller_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// podOf stands in for the StatefulSet or DaemonSet controller, the
// scheduler and the kubelet: a running pod of the workload's template on
// node, with the template's volumes (the runtime's hostPath cache
// directories among them).
func podOf(t *testing.T, owner client.Object, kind string, tmpl corev1.PodTemplateSpec, name, node string) *corev1.Pod {
	t.Helper()
	ctx := testenv.Context(t)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: owner.GetNamespace(), Labels: tmpl.Labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, appsv1.SchemeGroupVersion.WithKind(kind))}},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	p.Spec.NodeName = node
	if err := env.Client.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	setPodReady(t, p, true)
	return p
}

// cleanupJobs are the cache cleanup Jobs of the runtime name, by the node
// each is pinned to.
func cleanupJobs(t *testing.T, ns, name string) map[string]*batchv1.Job {
	t.Helper()
	list := &batchv1.JobList{}
	if err := env.Client.List(testenv.Context(t), list, client.InNamespace(ns), client.MatchingLabels{cachecleanup.LabelRuntime: name}); err != nil {
		t.Fatal(err)
	}
	out := map[string]*batchv1.Job{}
	for i := range list.Items {
		j := &list.Items[i]
		if j.Labels[cachecleanup.LabelStep] == "node" {
			out[j.Spec.Template.Spec.NodeName] = j
		}
	}
	return out
}

// freeJobOf waits for the free Job of the runtime's cache cleanup (an
// engine whose masters free the cache, Alluxio) and returns it.
func freeJobOf(t *testing.T, ns, name string) *batchv1.Job {
	t.Helper()
	j := &batchv1.Job{}
	key := types.NamespacedName{Namespace: ns, Name: cachecleanup.FreeJobName(cachecleanup.ReleaseName(name))}
	eventually(t, 20*time.Second, "the cache cleanup creates its free Job "+key.Name, func() bool {
		return env.Client.Get(testenv.Context(t), key, j) == nil
	})
	if j.Labels[cachecleanup.LabelStep] != "free" || j.Labels[cachecleanup.LabelRuntime] != name {
		t.Errorf("free Job labels %v", j.Labels)
	}
	return j
}

// finishJob stands in for the Job controller: it records the Job as
// complete or, with a reason, failed.
func finishJob(t *testing.T, j *batchv1.Job, failReason, failMessage string) {
	t.Helper()
	now := metav1.Now()
	j.Status.StartTime = &now
	if failReason == "" {
		j.Status.CompletionTime, j.Status.Succeeded = &now, 1
		j.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now},
		}
	} else {
		j.Status.Failed = 1
		j.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: failReason, Message: failMessage, LastTransitionTime: now},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: failReason, Message: failMessage, LastTransitionTime: now},
		}
	}
	if err := env.Client.Status().Update(testenv.Context(t), j); err != nil {
		t.Fatal(err)
	}
}

// failedAttempt stands in for the Job controller and the kubelet: a pod
// of the Job whose container exited with the code and what rm printed.
func failedAttempt(t *testing.T, j *batchv1.Job, exitCode int32, message string) {
	t.Helper()
	ctx := testenv.Context(t)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: j.Name + "-attempt", Namespace: j.Namespace,
			Labels:          j.Spec.Template.Labels, // as the Job controller sets them, with the Job's UID
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(j, batchv1.SchemeGroupVersion.WithKind("Job"))}},
		Spec: *j.Spec.Template.Spec.DeepCopy(),
	}
	if err := env.Client.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodFailed
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: p.Spec.Containers[0].Name, Image: p.Spec.Containers[0].Image,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: "Error", Message: message}}}}
	if err := env.Client.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
}

// engineWorkloads waits for the runtime's worker StatefulSet and FUSE
// DaemonSet and runs their pods: workers on nodes[0] and nodes[1], FUSE
// on nodes[2].
func engineWorkloads(t *testing.T, ns, name string, nodes []string) []*corev1.Pod {
	t.Helper()
	ctx := testenv.Context(t)
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	sts, fuse := &appsv1.StatefulSet{}, &appsv1.DaemonSet{}
	eventually(t, 20*time.Second, "Helm installs the workers and FUSE", func() bool {
		return env.Client.Get(ctx, key(name+"-worker"), sts) == nil && env.Client.Get(ctx, key(name+"-fuse"), fuse) == nil
	})
	pods := []*corev1.Pod{
		podOf(t, sts, "StatefulSet", sts.Spec.Template, name+"-worker-0", nodes[0]),
		podOf(t, sts, "StatefulSet", sts.Spec.Template, name+"-worker-1", nodes[1]),
		podOf(t, fuse, "DaemonSet", fuse.Spec.Template, name+"-fuse-x", nodes[2]),
	}
	markReady(t, sts)
	ds := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset is Bound", func() bool {
		return env.Client.Get(ctx, key(name), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	return pods
}

// TestDeletionCleansTheCacheOnTheNodesThatHeldIt (R19): deleting a bound
// JuiceFSRuntime with a hostPath tier installs one cleanup Job per node
// its workers and FUSE ran on (and none elsewhere: not on the node of
// another runtime sharing the tier path), each pinned to its node and
// removing exactly the runtime's directory there; the Jobs wait,
// suspended, while the engine's release is uninstalled and its pods stop,
// then run; once they complete, the runtime's deletion completes, the
// cleanup release is gone, and a Normal event says what was removed where.
func TestDeletionCleansTheCacheOnTheNodesThatHeldIt(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	nodes := []string{ns + "-n1", ns + "-n2", ns + "-n3", ns + "-n4"}
	for _, name := range []string{"imagenet", "coco"} {
		if err := env.Client.Create(ctx, testobj.Dataset(name, ns, testobj.WithMounts("juicefs:///"+name))); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Create(ctx, testobj.JuiceFSRuntime(name, ns, 2, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))); err != nil {
			t.Fatal(err)
		}
	}
	pods := engineWorkloads(t, ns, "imagenet", nodes)
	// Another runtime caching in the same path, on n1 and n4.
	engineWorkloads(t, ns, "coco", []string{nodes[0], nodes[3], nodes[3]})

	rt := &datav1alpha1.JuiceFSRuntime{}
	if err := env.Client.Get(ctx, key("imagenet"), rt); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	var jobs map[string]*batchv1.Job
	eventually(t, 20*time.Second, "a cleanup Job per node of the runtime's pods, and the engine's release uninstalled", func() bool {
		jobs = cleanupJobs(t, ns, "imagenet")
		return len(jobs) == 3 && apierrors.IsNotFound(env.Client.Get(ctx, key("imagenet-worker"), &appsv1.StatefulSet{}))
	})
	for _, n := range nodes[:3] {
		j := jobs[n]
		if j == nil {
			t.Fatalf("no cleanup Job on %s: %v", n, slices.Sorted(maps.Keys(jobs)))
		}
		spec := j.Spec.Template.Spec
		c := spec.Containers[0]
		want := []string{"rm", "-rf", "--", cachecleanup.MountRoot + "/0/imagenet"}
		if !slices.Equal(c.Command, want) || len(spec.Volumes) != 1 || spec.Volumes[0].HostPath == nil ||
			spec.Volumes[0].HostPath.Path != "/mnt/cache/.sluice/"+ns {
			t.Errorf("the Job on %s runs %q with volumes %+v; want %q with /mnt/cache/.sluice/%s mounted", n, c.Command, spec.Volumes, want, ns)
		}
		if !ptr.Deref(j.Spec.Suspend, false) {
			t.Errorf("the Job on %s runs while the engine's pods still do", n)
		}
	}
	if len(cleanupJobs(t, ns, "coco")) != 0 {
		t.Error("the other runtime got cleanup Jobs")
	}
	// The Jobs wait for the engine's pods (the garbage collector and the
	// kubelet remove them on a cluster; here the test does).
	time.Sleep(time.Second)
	for n, j := range cleanupJobs(t, ns, "imagenet") {
		if !ptr.Deref(j.Spec.Suspend, false) {
			t.Errorf("the Job on %s was resumed while the engine's pods run", n)
		}
	}
	for _, p := range pods {
		if err := env.Client.Delete(ctx, p, client.GracePeriodSeconds(0)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 20*time.Second, "the Jobs run once the engine's pods are gone", func() bool {
		jobs = cleanupJobs(t, ns, "imagenet")
		for _, j := range jobs {
			if ptr.Deref(j.Spec.Suspend, true) {
				return false
			}
		}
		return len(jobs) == 3
	})
	if err := env.Client.Get(ctx, key("imagenet"), rt); err != nil || rt.DeletionTimestamp.IsZero() {
		t.Fatalf("the runtime went before its cache was cleaned: %v", err)
	}
	for _, j := range jobs {
		finishJob(t, j, "", "")
	}
	eventually(t, 20*time.Second, "the runtime is gone, with its cleanup release", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key("imagenet"), rt)) && len(cleanupJobs(t, ns, "imagenet")) == 0
	})
	events := runtimeEvents(t, ns, "imagenet")
	if want := fmt.Sprintf("Normal CacheCleaned/Reconcile: removed the cache directories on nodes %s, %s, %s", nodes[0], nodes[1], nodes[2]); !strings.Contains(events, want) {
		t.Errorf("events:\n%s\nwant %q", events, want)
	}
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctx, key("imagenet"), ds); err != nil || ds.Status.Phase != datav1alpha1.NotBoundDatasetPhase {
		t.Errorf("Dataset after the deletion: %v, phase %q", err, ds.Status.Phase)
	}
}

// TestCacheCleanupThatFailsOrHangsIsGivenUp (R19): with
// cleanCachePolicy gracePeriodSeconds 1 and maxRetryAttempts 0, a
// deletion whose engine pods never go (no garbage collector here) starts
// the node Jobs after the grace period; one Job fails (what rm printed
// reaches the report), the other never finishes (no Job controller here)
// and is given up after its bound; the deletion completes anyway, with a
// Warning naming each node and its error (the note of the status's
// CacheCleaned and Ready conditions, which the event is recorded from).
func TestCacheCleanupThatFailsOrHangsIsGivenUp(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	nodes := []string{ns + "-n1", ns + "-n2", ns + "-n3"}
	if err := env.Client.Create(ctx, testobj.Dataset("logs", ns, testobj.WithMounts("juicefs:///logs"))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("logs", ns, 2, testobj.Level(datav1alpha1.HDD, "/mnt/jfs", "10Gi"))
	rt.Spec.Management.CleanCachePolicy = datav1alpha1.CleanCachePolicy{GracePeriodSeconds: ptr.To[int32](1), MaxRetryAttempts: ptr.To[int32](0)}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	engineWorkloads(t, ns, "logs", nodes)
	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var jobs map[string]*batchv1.Job
	eventually(t, 20*time.Second, "the cleanup Jobs run although the engine's pods stay", func() bool {
		jobs = cleanupJobs(t, ns, "logs")
		for _, j := range jobs {
			if ptr.Deref(j.Spec.Suspend, true) {
				return false
			}
		}
		return len(jobs) == 3
	})
	const rmSays = "rm: cannot remove '/sluice-cleanup/0/logs/raw': Device or resource busy"
	failedAttempt(t, jobs[nodes[0]], 1, rmSays+"\n")
	finishJob(t, jobs[nodes[0]], "BackoffLimitExceeded", "Job has reached the specified backoff limit")
	finishJob(t, jobs[nodes[2]], "", "")
	policy := cachecleanup.Policy{GracePeriodSeconds: 1}
	eventually(t, policy.GiveUpAfter()+20*time.Second, "the deletion completes, the hanging Job given up", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key("logs"), rt))
	})
	if took := time.Since(start); took < policy.GiveUpAfter() {
		t.Errorf("the hanging Job was given up after %s, before its bound %s", took, policy.GiveUpAfter())
	}
	events := runtimeEvents(t, ns, "logs")
	for _, want := range []string{
		"Warning CleanupFailed/Reconcile: the cache cleanup gave up, the deletion goes on: ",
		fmt.Sprintf("node %s: Job %s failed (BackoffLimitExceeded: Job has reached the specified backoff limit); its last attempt exited 1 (Error): %s",
			nodes[0], jobs[nodes[0]].Name, rmSays),
		fmt.Sprintf("node %s: did not finish within %s (gracePeriodSeconds 1, maxRetryAttempts 0)", nodes[1], policy.GiveUpAfter()),
	} {
		if !strings.Contains(events, want) {
			t.Errorf("events:\n%s\nwant %q", events, want)
		}
	}
	if strings.Contains(events, "node "+nodes[2]+":") {
		t.Errorf("the node whose Job completed is reported as failed:\n%s", events)
	}
	if n := len(cleanupJobs(t, ns, "logs")); n != 0 {
		t.Errorf("%d cleanup Jobs left after the deletion", n)
	}
}

// TestCacheCleanupTakesOverFromADeadController: a controller SIGKILLed in
// the middle of a cleanup step leaves the cleanup release's record
// pending, stamped by its process (written here into Helm's Secret
// storage, a moment old); the running controller takes the record as
// abandoned and goes on, and the deletion completes. tests/chaos found a
// deletion wedged for good behind such a record: every step's upgrade
// was refused with "another operation is in progress".
func TestCacheCleanupTakesOverFromADeadController(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	if err := env.Client.Create(ctx, testobj.Dataset("logs", ns, testobj.WithMounts("juicefs:///logs"))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("logs", ns, 2, testobj.Level(datav1alpha1.HDD, "/mnt/jfs", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	pods := engineWorkloads(t, ns, "logs", []string{ns + "-n1", ns + "-n2", ns + "-n3"})
	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	// The cleanup waits for the engine's pods, which stay until the test
	// deletes them: its release rests at a deployed revision.
	eventually(t, 20*time.Second, "the cleanup's node Jobs wait for the engine's pods", func() bool {
		return len(cleanupJobs(t, ns, "logs")) == 3
	})
	// Helm creates the Jobs before it writes the revision's final record:
	// the record is taken once it says deployed.
	releases := releaseStorage(t, ns)
	name := cachecleanup.ReleaseName("logs")
	var rec *release.Release
	seen := ""
	eventually(t, 20*time.Second, "the cleanup release rests at a deployed revision", func() bool {
		last, err := releases.Last(name)
		now := fmt.Sprint(err)
		if err == nil {
			rec, now = last, fmt.Sprintf("revision %d %s", last.Version, last.Info.Status)
		}
		if now != seen {
			t.Logf("the cleanup release: %s", now)
			seen = now
		}
		return err == nil && last.Info.Status == release.StatusDeployed
	})
	rec.Info.Status, rec.Info.LastDeployed = release.StatusPendingUpgrade, helmtime.Now()
	rec.Labels = map[string]string{helm.WriterLabel: "a-process-that-was-killed"}
	if err := releases.Update(rec); err != nil {
		t.Fatal(err)
	}

	for _, p := range pods {
		if err := env.Client.Delete(ctx, p, client.GracePeriodSeconds(0)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 20*time.Second, "the cleanup goes on past the abandoned record: its Jobs run", func() bool {
		jobs := cleanupJobs(t, ns, "logs")
		for _, j := range jobs {
			if ptr.Deref(j.Spec.Suspend, true) {
				return false
			}
		}
		return len(jobs) == 3
	})
	for _, j := range cleanupJobs(t, ns, "logs") {
		finishJob(t, j, "", "")
	}
	eventually(t, 20*time.Second, "the runtime is gone, with its cleanup release", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key("logs"), rt)) && len(cleanupJobs(t, ns, "logs")) == 0
	})
}
