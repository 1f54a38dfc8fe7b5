package e2eops_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// Annotations read by kwok's pod-complete stage (bin/kwok-stages.yaml):
// how long a Running, Ready pod owned by a Job stays Running before kwok
// completes it. The stage waits min(delay, jitter-delay) when the jitter is
// not above the delay, so both are set. A test sets them through the
// operation's spec.podMetadata to keep its Job executing, and sets them to
// 0s on the pod when the work is to finish: kwok re-reads a pod's delay when
// the pod changes.
const (
	completeDelay  = "pod-complete.stage.kwok.x-k8s.io/delay"
	completeJitter = "pod-complete.stage.kwok.x-k8s.io/jitter-delay"
)

// holdRunning is the pod metadata that keeps an operation's pod Running
// until the test lets it finish (finishPod).
func holdRunning() datav1alpha1.PodMetadata {
	return datav1alpha1.PodMetadata{Annotations: map[string]string{completeDelay: "1h", completeJitter: "1h"}}
}

// datasetName is the name of each scenario's Dataset and JuiceFSRuntime.
const datasetName = "data"

// scenario is one test's namespace, holding a JuiceFS Dataset bound by the
// controller (worker pod Ready on a kwok node, PV and PVC).
type scenario struct {
	t   *testing.T
	ctx context.Context
	ns  string
	// worker is the node the runtime's worker runs on.
	worker string
}

// newScenario creates a namespace with a Secret holding the volume's
// metadata URL, a Dataset naming it (as JuiceFS Datasets do, Shared
// placement) and a one-worker JuiceFSRuntime, and waits until the Dataset is Bound. When
// the test fails, what the namespace holds and the end of every
// component's log are shown.
func newScenario(t *testing.T, timeout time.Duration) *scenario {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "ops-"}}
	if err := cluster.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	s := &scenario{t: t, ctx: ctx, ns: ns.Name}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("namespace %s:\n%s", s.ns, s.dump())
			t.Logf("controller and webhook log lines naming %s:\n%s", s.ns, logLines(s.ns, 60))
			t.Log(cluster.Logs(15))
		}
	})
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "jfs"},
		StringData: map[string]string{"metaurl": "redis://redis.example:6379/1"}}
	ds := testobj.Dataset(datasetName, s.ns, testobj.WithMounts("juicefs:///data"))
	// Shared: the scenarios' workers may share the few nodes (an Exclusive
	// worker takes a node of its own).
	ds.Spec.Placement = datav1alpha1.ShareMode
	ds.Spec.Mounts[0].EncryptOptions = []datav1alpha1.EncryptOption{{Name: "metaurl",
		ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "jfs", Key: "metaurl"}}}}
	rt := testobj.JuiceFSRuntime(datasetName, s.ns, 1, testobj.Level(datav1alpha1.SSD, "/var/jfsCache", "10Gi"))
	for _, obj := range []client.Object{secret, ds, rt} {
		s.create(obj)
	}
	s.waitFor("the Dataset to be Bound", func() (bool, error) {
		ds := s.dataset()
		return ds.Status.Phase == datav1alpha1.BoundDatasetPhase, nil
	})
	pods := &corev1.PodList{}
	if err := cluster.Client.List(ctx, pods, client.InNamespace(s.ns), client.MatchingLabels{"role": "juicefs-worker"}); err != nil || len(pods.Items) != 1 {
		t.Fatalf("the runtime's worker pods: %d, %v", len(pods.Items), err)
	}
	s.worker = pods.Items[0].Spec.NodeName
	return s
}

func (s *scenario) key(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: s.ns, Name: name}
}

// create creates obj, failing the test if the API server refuses it.
func (s *scenario) create(obj client.Object) {
	s.t.Helper()
	if err := cluster.Client.Create(s.ctx, obj); err != nil {
		s.t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

// waitFor polls cond every 250ms until it holds, failing the test (with
// what was awaited) when the scenario's time runs out or the simulated
// cluster breaks. It returns how long it waited.
func (s *scenario) waitFor(what string, cond func() (bool, error)) time.Duration {
	s.t.Helper()
	start := time.Now()
	err := wait.PollUntilContextCancel(s.ctx, 250*time.Millisecond, true, func(context.Context) (bool, error) {
		if err := cluster.Check(); err != nil {
			return false, err
		}
		return cond()
	})
	if err != nil {
		s.t.Fatalf("waiting for %s: %v", what, err)
	}
	took := time.Since(start)
	s.t.Logf("%s after %s", what, took.Round(10*time.Millisecond))
	return took
}

// dataset reads the scenario's Dataset from the API server.
func (s *scenario) dataset() *datav1alpha1.Dataset {
	s.t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := cluster.Client.Get(s.ctx, s.key(datasetName), ds); err != nil {
		s.t.Fatalf("reading the Dataset: %v", err)
	}
	return ds
}

// holders lists the operations holding the Dataset, "Kind name" each.
func holders(ds *datav1alpha1.Dataset) string {
	var out []string
	for _, h := range claim.Holders(ds) {
		out = append(out, h.String())
	}
	return strings.Join(out, ",")
}

// read reads op again; false when it is gone.
func (s *scenario) read(obj client.Object) bool {
	s.t.Helper()
	err := cluster.Client.Get(s.ctx, client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		s.t.Fatalf("reading %T %s: %v", obj, obj.GetName(), err)
	}
	return true
}

// waitPhase waits for op to reach phase; an operation that fails instead
// fails the test at once with its Failed condition.
func (s *scenario) waitPhase(op datav1alpha1.OperationObject, phase datav1alpha1.Phase) {
	s.t.Helper()
	kind := op.GetOperationKind()
	s.waitFor(fmt.Sprintf("%s %s to be %s", kind, op.GetName(), phase), func() (bool, error) {
		if !s.read(op) {
			return false, fmt.Errorf("%s %s was deleted", kind, op.GetName())
		}
		st := op.GetOperationStatus()
		if st.Phase == datav1alpha1.PhaseFailed && phase != datav1alpha1.PhaseFailed {
			return false, fmt.Errorf("%s %s failed: %s", kind, op.GetName(), conditions(st))
		}
		return st.Phase == phase, nil
	})
}

// conditions shows an operation's conditions, one "Type=Status (Reason:
// message)" each.
func conditions(st *datav1alpha1.OperationStatus) string {
	var out []string
	for _, c := range st.Conditions {
		out = append(out, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(out, "; ")
}

// jobPods lists the pods of the named Job.
func (s *scenario) jobPods(job string) []corev1.Pod {
	s.t.Helper()
	pods := &corev1.PodList{}
	if err := cluster.Client.List(s.ctx, pods, client.InNamespace(s.ns), client.MatchingLabels{batchv1.JobNameLabel: job}); err != nil {
		s.t.Fatalf("listing the pods of Job %s: %v", job, err)
	}
	return pods.Items
}

// runningPod waits for the named Job's one pod to be Running and Ready
// and returns it.
func (s *scenario) runningPod(job string) *corev1.Pod {
	s.t.Helper()
	var pod *corev1.Pod
	s.waitFor("the pod of Job "+job+" to be Running", func() (bool, error) {
		pods := s.jobPods(job)
		if len(pods) > 1 {
			return false, fmt.Errorf("Job %s has %d pods, want 1", job, len(pods))
		}
		if len(pods) == 0 || pods[0].Status.Phase != corev1.PodRunning {
			return false, nil
		}
		pod = &pods[0]
		return true, nil
	})
	return pod
}

// succeededPod returns the named Job's pod that succeeded, failing the
// test unless there is exactly one.
func (s *scenario) succeededPod(job string) *corev1.Pod {
	s.t.Helper()
	var out []corev1.Pod
	for _, p := range s.jobPods(job) {
		if p.Status.Phase == corev1.PodSucceeded {
			out = append(out, p)
		}
	}
	if len(out) != 1 {
		s.t.Fatalf("Job %s has %d succeeded pods, want 1", job, len(out))
	}
	return &out[0]
}

// finishPod lets kwok complete a pod kept Running by holdRunning: its
// pod-complete stage re-reads the delay when the pod changes.
func (s *scenario) finishPod(pod *corev1.Pod) {
	s.t.Helper()
	patch := client.MergeFrom(pod.DeepCopy())
	pod.Annotations[completeDelay], pod.Annotations[completeJitter] = "0s", "0s"
	if err := cluster.Client.Patch(s.ctx, pod, patch); err != nil {
		s.t.Fatalf("letting pod %s finish: %v", pod.Name, err)
	}
}

// datasetState is what the Dataset's status said at one point: its phase
// and its holders.
type datasetState struct {
	phase   datav1alpha1.DatasetPhase
	holders string
}

func (d datasetState) String() string { return fmt.Sprintf("%s[%s]", d.phase, d.holders) }

// history records every state the scenario's Dataset goes through, from a
// watch, so that short-lived states (a claim held for a few seconds) are
// not missed between polls.
type history struct {
	mu     sync.Mutex
	states []datasetState
}

// record starts recording the Dataset's states until the scenario ends.
func (s *scenario) record() *history {
	s.t.Helper()
	h := &history{}
	ds := s.dataset()
	h.add(ds)
	go func() {
		rv := ds.ResourceVersion
		for s.ctx.Err() == nil {
			w, err := watcher.Watch(s.ctx, &datav1alpha1.DatasetList{}, client.InNamespace(s.ns),
				client.MatchingFields{"metadata.name": datasetName}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for ev := range w.ResultChan() {
				if d, ok := ev.Object.(*datav1alpha1.Dataset); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) {
					h.add(d)
					rv = d.ResourceVersion
				}
			}
			w.Stop()
		}
	}()
	return h
}

func (h *history) add(ds *datav1alpha1.Dataset) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := datasetState{phase: ds.Status.Phase, holders: holders(ds)}
	if n := len(h.states); n == 0 || h.states[n-1] != st {
		h.states = append(h.states, st)
	}
}

// snapshot returns the states recorded so far, each differing from the
// one before.
func (h *history) snapshot() []datasetState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.states)
}

// String shows the states recorded, oldest first.
func (h *history) String() string {
	var out []string
	for _, st := range h.snapshot() {
		out = append(out, st.String())
	}
	return strings.Join(out, " → ")
}

// dump shows what the namespace holds: the Dataset's status, each
// operation's phase and conditions, each Job and pod.
func (s *scenario) dump() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := cluster.Client
	var b strings.Builder
	ds := &datav1alpha1.Dataset{}
	if err := c.Get(ctx, s.key(datasetName), ds); err == nil {
		fmt.Fprintf(&b, "Dataset %s: phase %s, holders [%s]\n", ds.Name, ds.Status.Phase, holders(ds))
	}
	for _, kind := range []datav1alpha1.OperationKind{datav1alpha1.DataLoadKind, datav1alpha1.DataProcessKind, datav1alpha1.DataMigrateKind} {
		list, _ := datav1alpha1.NewOperationList(string(kind))
		if err := c.List(ctx, list, client.InNamespace(s.ns)); err != nil {
			fmt.Fprintf(&b, "listing %s: %v\n", kind, err)
			continue
		}
		for _, op := range list.GetOperations() {
			st := op.GetOperationStatus()
			fmt.Fprintf(&b, "%s %s: phase %q; %s\n", kind, op.GetName(), st.Phase, conditions(st))
		}
	}
	jobs := &batchv1.JobList{}
	if err := c.List(ctx, jobs, client.InNamespace(s.ns)); err == nil {
		for _, j := range jobs.Items {
			var conds []string
			for _, cond := range j.Status.Conditions {
				conds = append(conds, fmt.Sprintf("%s=%s", cond.Type, cond.Status))
			}
			fmt.Fprintf(&b, "Job %s: suspend %v, active %d, succeeded %d, failed %d, %v\n", j.Name, j.Spec.Suspend != nil && *j.Spec.Suspend,
				j.Status.Active, j.Status.Succeeded, j.Status.Failed, conds)
		}
	}
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(s.ns)); err == nil {
		for _, p := range pods.Items {
			fmt.Fprintf(&b, "Pod %s: %s on %q, deleting %v\n", p.Name, p.Status.Phase, p.Spec.NodeName, p.DeletionTimestamp != nil)
		}
	}
	return b.String()
}

// logLines are the last n lines of the in-process controller's and
// webhook's log that contain substr.
func logLines(substr string, n int) string {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return strings.Join(out[max(0, len(out)-n):], "\n")
}
