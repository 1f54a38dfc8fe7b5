package e2eops_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestDataOperations runs data operations end to end on the simulated cluster,
// each scenario on a Dataset of its own (JuiceFS, and Thin for a Thin
// DataLoad): the controller renders the engines' operations (juicefs warmup,
// juicefs sync, sluice warmup) and engines/workloads/process's DataProcess
// through charts/dataop, the webhook admits them (and mutates their pods), the
// Job and CronJob controllers of kube-controller-manager create the pods,
// kube-scheduler places them and kwok runs and completes them. The scenarios
// run in parallel (as many at once as go test's -parallel allows, GOMAXPROCS
// by default), the Cron one first: it waits for two scheduled runs, and cron's
// finest schedule is a minute (the CronJob controller takes no seconds field),
// so the others run meanwhile.
func TestDataOperations(t *testing.T) {
	t.Run("cron-runs-twice-releasing-between-runs", cronRunsTwice)
	t.Run("runafter-require-follows-the-node", runAfterFollowsTheNode)
	t.Run("exclusive-denied-then-admitted", exclusiveDeniedThenAdmitted)
	t.Run("datamigrate-flips-the-dataset-phase", dataMigrateFlipsThePhase)
	t.Run("datamigrate-block-decides-readers", dataMigrateBlockDecidesReaders)
	t.Run("delete-running-releases-at-once", deleteReleasesAtOnce)
	t.Run("thin-dataload-completes", thinDataLoadCompletes)
}

// runAfterFollowsTheNode: a DataLoad pinned by nodeSelector to a node
// other than the cache worker's, and a DataProcess after it with
// affinityStrategy Require on kubernetes.io/hostname, created together.
// The DataProcess's Job is created only once the DataLoad is Complete, its
// pod requires the DataLoad's node and runs there, although nothing else
// draws it there: the mutating webhook's data affinity (the pod is
// labelled serverful) prefers the worker's node.
func runAfterFollowsTheNode(t *testing.T) {
	t.Parallel()
	s := newScenario(t, 3*time.Minute)
	target := ""
	for _, n := range nodes {
		if n != s.worker {
			target = n
			break
		}
	}
	load := testobj.DataLoad("warm", s.ns, datasetName)
	load.Spec.Target = []datav1alpha1.TargetPath{{Path: "/train"}}
	load.Spec.NodeSelector = map[string]string{corev1.LabelHostname: target}
	process := &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "train"}, Spec: datav1alpha1.DataProcessSpec{
		Dataset: datav1alpha1.TargetDatasetWithMountPath{Name: datasetName, MountPath: "/data"},
		Processor: datav1alpha1.Processor{
			// Serverful data affinity: the mutating webhook makes the pod
			// prefer the nodes caching the Dataset (the worker's), away
			// from the DataLoad's node.
			PodMetadata: datav1alpha1.PodMetadata{Labels: map[string]string{"fuse.serverful.fluid.io/inject": "true"}},
			Script: &datav1alpha1.ScriptProcessor{
				VersionSpec: datav1alpha1.VersionSpec{Image: "busybox", ImageTag: "1.36"}, Command: []string{"sh"}, Source: "ls /data"}},
		RunAfter: &datav1alpha1.OperationRef{ObjectRef: datav1alpha1.ObjectRef{Kind: datav1alpha1.DataLoadKind, Name: load.Name},
			AffinityStrategy: datav1alpha1.AffinityStrategy{Policy: datav1alpha1.RequireAffinityStrategy,
				Requires: []datav1alpha1.Require{{Name: corev1.LabelHostname}}}},
	}}
	s.create(load)
	s.create(process)

	s.waitPhase(load, datav1alpha1.PhaseComplete)
	loadJob := operation.ReleaseName(datav1alpha1.DataLoadKind, load.Name)
	if got := s.succeededPod(loadJob).Spec.NodeName; got != target {
		t.Fatalf("the DataLoad's pod ran on %q, want %q (its nodeSelector)", got, target)
	}
	if !recordsNode(load.Status.NodeAffinity, target) {
		t.Fatalf("the DataLoad's status.nodeAffinity = %+v, want a required kubernetes.io/hostname In [%s]", load.Status.NodeAffinity, target)
	}
	complete := meta.FindStatusCondition(load.Status.Conditions, operation.ConditionComplete)

	s.waitPhase(process, datav1alpha1.PhaseComplete)
	processJob := operation.ReleaseName(datav1alpha1.DataProcessKind, process.Name)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: processJob}}
	if !s.read(job) {
		t.Fatalf("Job %s of the finished DataProcess is gone", processJob)
	}
	if job.CreationTimestamp.Before(&complete.LastTransitionTime) {
		t.Fatalf("the DataProcess's Job was created at %s, before the DataLoad completed at %s: it did not wait (runAfter)",
			job.CreationTimestamp.UTC(), complete.LastTransitionTime.UTC())
	}
	pod := s.succeededPod(processJob)
	if aff := pod.Spec.Affinity; aff == nil || aff.NodeAffinity == nil || !recordsNode(aff.NodeAffinity, target) {
		t.Fatalf("the DataProcess's pod affinity = %+v, want a required kubernetes.io/hostname In [%s] (affinityStrategy Require)", pod.Spec.Affinity, target)
	}
	cacheKey := datav1alpha1.KeyOf(s.dataset()).CacheLabelKey()
	if !slices.ContainsFunc(pod.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, func(p corev1.PreferredSchedulingTerm) bool {
		return slices.ContainsFunc(p.Preference.MatchExpressions, func(e corev1.NodeSelectorRequirement) bool { return e.Key == cacheKey })
	}) {
		t.Fatalf("the DataProcess's pod affinity = %+v, want the webhook's preference for the nodes caching the Dataset (%s) beside the requirement",
			pod.Spec.Affinity.NodeAffinity, cacheKey)
	}
	if pod.Spec.NodeName != target {
		t.Fatalf("the DataProcess's pod ran on %q, want %q, the DataLoad's node (the cache worker is on %q)", pod.Spec.NodeName, target, s.worker)
	}
	t.Logf("DataLoad on %s, DataProcess followed to %s (worker on %s)", target, pod.Spec.NodeName, s.worker)
}

// recordsNode reports whether a required node affinity has, in every term,
// kubernetes.io/hostname In [node].
func recordsNode(a *corev1.NodeAffinity, node string) bool {
	if a == nil || a.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		return false
	}
	for _, term := range a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if !slices.ContainsFunc(term.MatchExpressions, func(e corev1.NodeSelectorRequirement) bool {
			return e.Key == corev1.LabelHostname && e.Operator == corev1.NodeSelectorOpIn && slices.Equal(e.Values, []string{node})
		}) {
			return false
		}
	}
	return true
}

// cronRunsTwice: a Cron DataLoad scheduled every minute (cron's finest
// granularity; the CronJob controller has no faster clock) is run twice
// by the CronJob controller. Each run starts suspended, is resumed once the
// Dataset is claimed and completes; the Dataset's recorded states show the
// claim taken and released for each run, so that it is free between runs.
func cronRunsTwice(t *testing.T) {
	t.Parallel()
	s := newScenario(t, 4*time.Minute)
	seen := s.record()
	load := testobj.DataLoad("nightly", s.ns, datasetName)
	load.Spec.Policy, load.Spec.Schedule = datav1alpha1.Cron, "* * * * *"
	s.create(load)

	cronJob := operation.ReleaseName(datav1alpha1.DataLoadKind, load.Name)
	var runs []string
	s.waitFor("two runs of the CronJob to complete", func() (bool, error) {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: cronJob}}
		if !s.read(cj) {
			return false, nil
		}
		jobs := &batchv1.JobList{}
		if err := cluster.Client.List(s.ctx, jobs, client.InNamespace(s.ns)); err != nil {
			return false, err
		}
		runs = runs[:0]
		for _, j := range jobs.Items {
			if owner := metav1.GetControllerOf(&j); owner == nil || owner.UID != cj.UID {
				continue
			}
			for _, c := range j.Status.Conditions {
				if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
					runs = append(runs, j.Name)
				}
				if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
					return false, fmt.Errorf("run %s failed: %s", j.Name, c.Message)
				}
			}
		}
		return len(runs) >= 2, nil
	})
	s.waitFor("the DataLoad to show its second run Complete and the Dataset free", func() (bool, error) {
		s.read(load)
		st := load.Status
		return st.Phase == datav1alpha1.PhaseComplete && st.LastSuccessfulTime != nil && holders(s.dataset()) == "", nil
	})
	// The claim is taken for each run and released after it: the holders
	// recorded go "" → DataLoad nightly → "" at least twice.
	var claims []string
	for _, st := range seen.snapshot() {
		if n := len(claims); n == 0 || claims[n-1] != st.holders {
			claims = append(claims, st.holders)
		}
	}
	held := "DataLoad " + load.Name
	want := []string{"", held, "", held, ""}
	if len(claims) < len(want) || !slices.Equal(claims[:len(want)], want) {
		t.Fatalf("the Dataset's holders went %q, want %q: a claim per run, released between runs (states: %s)", claims, want, seen)
	}
	for _, h := range claims {
		if h != "" && h != held {
			t.Fatalf("the Dataset was held by %q; only %q runs on it (states: %s)", h, held, seen)
		}
	}
	t.Logf("runs %v; the Dataset's states: %s", runs, seen)
}

// exclusiveDeniedThenAdmitted: while a DataLoad executes (its pod kept
// Running by kwok's stage delay), the validating webhook denies a second
// DataLoad of the same Dataset, naming the holder; once the first
// completes and the controller releases the Dataset, the second is
// admitted and runs.
func exclusiveDeniedThenAdmitted(t *testing.T) {
	t.Parallel()
	s := newScenario(t, 3*time.Minute)
	first := testobj.DataLoad("first", s.ns, datasetName)
	first.Spec.PodMetadata = holdRunning()
	s.create(first)
	s.waitPhase(first, datav1alpha1.PhaseExecuting)
	pod := s.runningPod(operation.ReleaseName(datav1alpha1.DataLoadKind, first.Name))

	second := testobj.DataLoad("second", s.ns, datasetName)
	err := cluster.Client.Create(s.ctx, second.DeepCopy())
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "rule operation-exclusive") || !strings.Contains(err.Error(), "DataLoad first") {
		t.Fatalf("a second DataLoad while the first executes: %v; want it denied by rule operation-exclusive naming DataLoad first", err)
	}
	t.Logf("denied while the first executes: %v", err)
	if s.read(first); first.Status.Phase != datav1alpha1.PhaseExecuting {
		t.Fatalf("the first DataLoad is %s after the denial, want it still Executing (the denial proves nothing otherwise)", first.Status.Phase)
	}
	if got := holders(s.dataset()); got != "DataLoad first" {
		t.Fatalf("the Dataset's holders while the first executes: %q, want %q", got, "DataLoad first")
	}

	s.finishPod(pod)
	s.waitPhase(first, datav1alpha1.PhaseComplete)
	s.waitFor("the Dataset to be released", func() (bool, error) { return holders(s.dataset()) == "", nil })
	if err := cluster.Client.Create(s.ctx, second); err != nil {
		t.Fatalf("the second DataLoad once the first completed: %v; want it admitted", err)
	}
	s.waitPhase(second, datav1alpha1.PhaseComplete)
}

// dataMigrateFlipsThePhase: a DataMigrate from an object store into the
// Dataset (juicefs sync) sets the Dataset's phase to DataMigrating while
// it holds the claim, and back to Bound when it completes.
func dataMigrateFlipsThePhase(t *testing.T) {
	t.Parallel()
	s := newScenario(t, 3*time.Minute)
	seen := s.record()
	migrate := &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "import"}, Spec: datav1alpha1.DataMigrateSpec{
		From: datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://datasets/extra/"}},
		To:   datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: datasetName, Namespace: s.ns, Path: "/extra"}},
	}}
	s.create(migrate)
	s.waitPhase(migrate, datav1alpha1.PhaseComplete)
	s.waitFor("the Dataset to be Bound and free again", func() (bool, error) {
		ds := s.dataset()
		return ds.Status.Phase == datav1alpha1.BoundDatasetPhase && holders(ds) == "", nil
	})
	var phases []datav1alpha1.DatasetPhase
	for _, st := range seen.snapshot() {
		if n := len(phases); n == 0 || phases[n-1] != st.phase {
			phases = append(phases, st.phase)
		}
		if st.phase == datav1alpha1.DataMigratingDatasetPhase && st.holders != "DataMigrate import" {
			t.Errorf("the Dataset was DataMigrating with holders %q, want DataMigrate import", st.holders)
		}
	}
	want := []datav1alpha1.DatasetPhase{datav1alpha1.BoundDatasetPhase, datav1alpha1.DataMigratingDatasetPhase, datav1alpha1.BoundDatasetPhase}
	if !slices.Equal(phases, want) {
		t.Fatalf("the Dataset's phase went %v, want %v (states: %s)", phases, want, seen)
	}
	t.Logf("the Dataset's states: %s", seen)
}

// deleteReleasesAtOnce: deleting a DataLoad whose Job is running (its pod
// kept Running) removes its release and Job and releases the Dataset
// without waiting for the work: the pod is still Running when the claim
// is gone.
func deleteReleasesAtOnce(t *testing.T) {
	t.Parallel()
	s := newScenario(t, 3*time.Minute)
	load := testobj.DataLoad("doomed", s.ns, datasetName)
	load.Spec.PodMetadata = holdRunning()
	s.create(load)
	s.waitPhase(load, datav1alpha1.PhaseExecuting)
	jobName := operation.ReleaseName(datav1alpha1.DataLoadKind, load.Name)
	s.runningPod(jobName)
	if got := holders(s.dataset()); got != "DataLoad doomed" {
		t.Fatalf("the Dataset's holders while the DataLoad executes: %q, want %q", got, "DataLoad doomed")
	}

	if err := cluster.Client.Delete(s.ctx, load); err != nil {
		t.Fatal(err)
	}
	took := s.waitFor("the DataLoad, its claim and its Job to be gone", func() (bool, error) {
		if s.read(load) || holders(s.dataset()) != "" {
			return false, nil
		}
		return !s.read(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: jobName}}), nil
	})
	// kwok would have completed the pod after an hour: everything above
	// happened while the work was still running, not because it ended.
	if limit := 20 * time.Second; took > limit {
		t.Fatalf("the deletion took %s to release the Dataset, want it within %s", took, limit)
	}
	s.waitFor("the Job's pod to be deleted", func() (bool, error) { return len(s.jobPods(jobName)) == 0, nil })
}
