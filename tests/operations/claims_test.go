package operations_test

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestClaimsEndWithTheWork: an operation executes only while it holds its
// Dataset. A second DataLoad waits Pending, naming the holder, with no
// Job; a DataProcess (which does not conflict with loads) runs alongside.
// When the first fails the Dataset passes to the second, and deleting the
// second while it executes removes its Job and release and frees the
// Dataset at once.
func TestClaimsEndWithTheWork(t *testing.T) {
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	seed(t, ns, "imagenet", engineFake)
	first, second := dataLoad(ns, "first", "imagenet"), dataLoad(ns, "second", "imagenet")
	create(t, first)
	reaches(t, first, datav1alpha1.PhaseExecuting, 10*time.Second)
	create(t, second)
	eventually(t, 10*time.Second, "the second DataLoad waits, naming the holder", func() bool {
		c := condition(t, second, operation.ConditionDatasetClaimed)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == operation.ReasonDatasetHeld
	})
	if c := condition(t, second, operation.ConditionDatasetClaimed); c.Message != "dataset "+ns+"/imagenet is held by DataLoad first; one operation of a conflicting kind runs at a time; waiting" {
		t.Fatalf("condition message = %q", c.Message)
	}
	if p := status(t, second).Phase; p != datav1alpha1.PhasePending {
		t.Fatalf("the waiting DataLoad is %q, want Pending", p)
	}
	if read(t, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "second-loader"}}) {
		t.Fatal("the waiting DataLoad has a Job")
	}
	proc := &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "stats"}, Spec: datav1alpha1.DataProcessSpec{
		Dataset:   datav1alpha1.TargetDatasetWithMountPath{Name: "imagenet", MountPath: "/data"},
		Processor: datav1alpha1.Processor{Script: &datav1alpha1.ScriptProcessor{VersionSpec: datav1alpha1.VersionSpec{Image: "busybox"}, Command: []string{"sh"}, Source: "true"}},
	}}
	create(t, proc)
	reaches(t, proc, datav1alpha1.PhaseExecuting, 10*time.Second)

	finishJob(t, ns, "first-loader", false)
	reaches(t, first, datav1alpha1.PhaseFailed, 10*time.Second)
	if c := condition(t, first, operation.ConditionFailed); c == nil || c.Reason != operation.ReasonJobFailed ||
		c.Message != "Job first-loader failed: BackoffLimitExceeded: Job has reached the specified backoff limit" {
		t.Fatalf("Failed condition = %+v", c)
	}
	reaches(t, second, datav1alpha1.PhaseExecuting, 20*time.Second)
	if got := holders(t, ns, "imagenet"); got != "DataLoad second,DataProcess stats" {
		t.Fatalf("holders = %q", got)
	}

	if err := env.Client.Delete(ctx, second); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the deleted DataLoad is gone and the Dataset released at once", func() bool {
		return !read(t, second) && holders(t, ns, "imagenet") == "DataProcess stats"
	})
	if read(t, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "second-loader"}}) {
		t.Fatal("the deleted DataLoad's Job is still there")
	}
	secrets := &corev1.SecretList{}
	if err := env.Client.List(ctx, secrets, client.InNamespace(ns), client.MatchingLabels{"owner": "helm", "name": "second-loader"}); err != nil || len(secrets.Items) != 0 {
		t.Fatalf("the deleted DataLoad's release records: %d (%v)", len(secrets.Items), err)
	}
	if !strings.Contains(events(t, first), "Warning JobFailed") {
		t.Fatalf("no Warning for the failure: %s", events(t, first))
	}
}
