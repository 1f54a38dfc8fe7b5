package operations_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Create(testenv.Context(t), obj); err != nil {
		t.Fatalf("creating %s: %v", obj.GetName(), err)
	}
}

// seed creates a Dataset bound to a runtime of the named engine (status
// written as the runtime reconciler would), and that runtime.
func seed(t *testing.T, ns, name, engine string) {
	t.Helper()
	ctx := testenv.Context(t)
	ds := testobj.Dataset(name, ns)
	create(t, ds)
	// Again on a conflict: the Dataset controller writes its finalizer and
	// phase meanwhile.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ds), ds); err != nil {
			return err
		}
		ds.Status.Phase = datav1alpha1.BoundDatasetPhase
		ds.Status.Runtimes = []datav1alpha1.Runtime{{Name: name, Namespace: ns, Type: engine, Category: datav1alpha1.AccelerateCategory}}
		return env.Client.Status().Update(ctx, ds)
	})
	if err != nil {
		t.Fatal(err)
	}
	meta := metav1.ObjectMeta{Name: name, Namespace: ns}
	var rt client.Object
	switch engine {
	case engineFake:
		rt = &datav1alpha1.AlluxioRuntime{ObjectMeta: meta, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 1}}
	case engineNoLoad:
		rt = &datav1alpha1.JindoRuntime{ObjectMeta: meta, Spec: datav1alpha1.JindoRuntimeSpec{Replicas: 1}}
	case engineUngated:
		rt = &datav1alpha1.JuiceFSRuntime{ObjectMeta: meta, Spec: datav1alpha1.JuiceFSRuntimeSpec{Replicas: 1}}
	default:
		return // a runtime type no engine serves
	}
	create(t, rt)
}

func key(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}

// read reads obj again; false when it is gone.
func read(t *testing.T, obj client.Object) bool {
	t.Helper()
	err := env.Client.Get(testenv.Context(t), client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// status reads an operation's status.
func status(t *testing.T, op datav1alpha1.OperationObject) *datav1alpha1.OperationStatus {
	t.Helper()
	if !read(t, op) {
		t.Fatalf("%s was deleted", op.GetName())
	}
	return op.GetOperationStatus()
}

// condition is an operation's condition of type typ, or nil.
func condition(t *testing.T, op datav1alpha1.OperationObject, typ string) *metav1.Condition {
	t.Helper()
	return meta.FindStatusCondition(status(t, op).Conditions, typ)
}

// reaches waits for an operation to reach a phase.
func reaches(t *testing.T, op datav1alpha1.OperationObject, phase datav1alpha1.Phase, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("%s reaches %s", op.GetName(), phase), func() bool { return status(t, op).Phase == phase })
}

// holders lists the Dataset's holders, "Kind name" each, comma-separated.
func holders(t *testing.T, ns, name string) string {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(testenv.Context(t), key(ns, name), ds); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range claim.Holders(ds) {
		out = append(out, h.String())
	}
	return strings.Join(out, ",")
}

func datasetPhase(t *testing.T, ns, name string) datav1alpha1.DatasetPhase {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(testenv.Context(t), key(ns, name), ds); err != nil {
		t.Fatal(err)
	}
	return ds.Status.Phase
}

// waitJob waits for a Job to exist and returns it.
func waitJob(t *testing.T, ns, name string) *batchv1.Job {
	t.Helper()
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	eventually(t, 20*time.Second, "Job "+name+" is created", func() bool { return read(t, job) })
	return job
}

// finishJob stands in for the Job controller: it marks the Job complete
// or failed.
func finishJob(t *testing.T, ns, name string, succeeded bool) {
	t.Helper()
	ctx := testenv.Context(t)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		job := &batchv1.Job{}
		if err := env.Client.Get(ctx, key(ns, name), job); err != nil {
			return err
		}
		now := metav1.Now()
		start := metav1.NewTime(now.Add(-42 * time.Second))
		job.Status.StartTime = &start
		if succeeded {
			job.Status.CompletionTime, job.Status.Succeeded = &now, 1
			job.Status.Conditions = []batchv1.JobCondition{
				{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now},
			}
		} else {
			job.Status.Failed = 1
			job.Status.Conditions = []batchv1.JobCondition{
				{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
				{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
			}
		}
		return env.Client.Status().Update(ctx, job)
	})
	if err != nil {
		t.Fatalf("finishing Job %s: %v", name, err)
	}
}

// node creates a node with labels, deleted when the test ends.
func node(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	create(t, n)
	t.Cleanup(func() { _ = env.Client.Delete(testenv.Context(t), n) })
}

// ranOn stands in for the Job controller and the kubelet: a pod of the Job
// that succeeded on the node.
func ranOn(t *testing.T, job *batchv1.Job, nodeName string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: job.Name + "-pod", Labels: job.Spec.Template.Labels},
		Spec: corev1.PodSpec{NodeName: nodeName, RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "operation", Image: "registry.k8s.io/pause:3.10"}}},
	}
	create(t, pod)
	pod.Status.Phase = corev1.PodSucceeded
	if err := env.Client.Status().Update(testenv.Context(t), pod); err != nil {
		t.Fatal(err)
	}
}

// cronRun stands in for the CronJob controller: it creates the run
// scheduled at when, from the CronJob's jobTemplate, owned by the CronJob.
func cronRun(t *testing.T, cj *batchv1.CronJob, when time.Time) *batchv1.Job {
	t.Helper()
	tmpl := cj.Spec.JobTemplate
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: cj.Namespace, Name: fmt.Sprintf("%s-%d", cj.Name, when.Unix()/60), Labels: tmpl.Labels,
			Annotations:     map[string]string{batchv1.CronJobScheduledTimestampAnnotation: when.Format(time.RFC3339)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.SchemeGroupVersion.WithKind("CronJob"))},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	create(t, job)
	return job
}

// suspended reports whether a Job is suspended.
func suspended(t *testing.T, job *batchv1.Job) bool {
	t.Helper()
	read(t, job)
	return ptr.Deref(job.Spec.Suspend, false)
}

// events lists the Events about an object, "<type> <reason>: <note>" each.
func events(t *testing.T, obj client.Object) string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := env.Client.List(testenv.Context(t), list, client.InNamespace(obj.GetNamespace())); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range list.Items {
		if e.Regarding.Name == obj.GetName() && e.Regarding.UID == obj.GetUID() {
			fmt.Fprintf(&b, "%s %s: %s\n", e.Type, e.Reason, e.Note)
		}
	}
	return b.String()
}

// dataLoad returns a DataLoad of a Dataset, changed by opts.
func dataLoad(ns, name, dataset string, opts ...func(*datav1alpha1.DataLoad)) *datav1alpha1.DataLoad {
	dl := testobj.DataLoad(name, ns, dataset)
	for _, o := range opts {
		o(dl)
	}
	return dl
}

// admissionClaim records the claim the validating webhook makes when it
// admits an operation (no webhook runs here).
func admissionClaim(t *testing.T, ns, dataset, kind, name string) {
	t.Helper()
	err := claimer().Claim(testenv.Context(t), claim.Request{Dataset: key(ns, dataset), Kind: kind, Name: name})
	if err != nil {
		t.Fatalf("claiming %s for %s %s: %v", dataset, kind, name, err)
	}
}

func claimer() *claim.Claimer { return &claim.Claimer{Client: env.Client, Grace: grace, Attempts: 3} }
