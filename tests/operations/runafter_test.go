package operations_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
)

func process(ns, name, dataset string, after *datav1alpha1.OperationRef) *datav1alpha1.DataProcess {
	return &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: datav1alpha1.DataProcessSpec{
		Dataset:   datav1alpha1.TargetDatasetWithMountPath{Name: dataset, MountPath: "/data"},
		Processor: datav1alpha1.Processor{Script: &datav1alpha1.ScriptProcessor{VersionSpec: datav1alpha1.VersionSpec{Image: "busybox"}, Source: "true"}},
		RunAfter:  after,
	}}
}

// TestRunAfterWaitsThenFollowsTheNode: a DataProcess created before the
// DataLoad it runs after waits (waitingFor.operationComplete) with no Job
// while the DataLoad is missing and then executing; once the DataLoad
// completes on a node, the DataProcess's Job requires that node (Require)
// and another prefers the zone (Prefer).
func TestRunAfterWaitsThenFollowsTheNode(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", engineFake)
	node(t, "n1-"+ns, map[string]string{"topology.kubernetes.io/zone": "zone-b"})
	after := &datav1alpha1.OperationRef{ObjectRef: datav1alpha1.ObjectRef{Kind: datav1alpha1.DataLoadKind, Name: "load"},
		AffinityStrategy: datav1alpha1.AffinityStrategy{Policy: datav1alpha1.RequireAffinityStrategy}}
	train := process(ns, "train", "imagenet", after)
	admissionClaim(t, ns, "imagenet", "DataProcess", "train")
	create(t, train)
	eventually(t, 10*time.Second, "waits for a DataLoad that does not exist yet, holding nothing", func() bool {
		c := condition(t, train, operation.ConditionWaitingForRunAfter)
		w := status(t, train).WaitingFor.OperationComplete
		return c != nil && c.Reason == operation.ReasonRunAfterNotFound && w != nil && *w && holders(t, ns, "imagenet") == ""
	})
	prefer := after.DeepCopy()
	prefer.AffinityStrategy = datav1alpha1.AffinityStrategy{Policy: datav1alpha1.PreferAffinityStrategy,
		Prefers: []datav1alpha1.Prefer{{Name: "topology.kubernetes.io/zone", Weight: 40}}}
	eval := process(ns, "eval", "imagenet", prefer)
	create(t, eval)

	load := dataLoad(ns, "load", "imagenet")
	create(t, load)
	job := waitJob(t, ns, "load-loader")
	eventually(t, 10*time.Second, "waits while the DataLoad executes", func() bool {
		c := condition(t, train, operation.ConditionWaitingForRunAfter)
		return c != nil && c.Reason == operation.ReasonRunAfterPending && c.Message == "spec.runAfter: waiting for DataLoad load to complete (Executing)"
	})
	if p := status(t, train).Phase; p != datav1alpha1.PhasePending {
		t.Fatalf("the waiting DataProcess is %q", p)
	}
	ranOn(t, job, "n1-"+ns)
	finishJob(t, ns, job.Name, true)

	trainJob := waitJob(t, ns, "train-processor")
	reaches(t, train, datav1alpha1.PhaseExecuting, 10*time.Second)
	req := trainJob.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if !equalExprs(req.NodeSelectorTerms[0].MatchExpressions, []corev1.NodeSelectorRequirement{
		{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1-" + ns}},
	}) {
		t.Fatalf("the DataProcess's Job requires %+v", req)
	}
	if w := status(t, train).WaitingFor.OperationComplete; w == nil || *w {
		t.Fatalf("waitingFor.operationComplete = %v once the DataLoad completed", w)
	}
	evalJob := waitJob(t, ns, "eval-processor")
	pref := evalJob.Spec.Template.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	if len(pref) != 1 || pref[0].Weight != 40 || !equalExprs(pref[0].Preference.MatchExpressions, []corev1.NodeSelectorRequirement{
		{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-b"}},
	}) {
		t.Fatalf("the Prefer DataProcess's Job prefers %+v", pref)
	}
}

// TestRunAfterFailsWhenThePrecedingFails: an operation after one that
// failed fails too, without a Job.
func TestRunAfterFailsWhenThePrecedingFails(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", engineFake)
	load := dataLoad(ns, "load", "imagenet")
	create(t, load)
	train := process(ns, "train", "imagenet", &datav1alpha1.OperationRef{ObjectRef: datav1alpha1.ObjectRef{Kind: datav1alpha1.DataLoadKind, Name: "load"}})
	create(t, train)
	finishJob(t, ns, waitJob(t, ns, "load-loader").Name, false)
	reaches(t, train, datav1alpha1.PhaseFailed, 10*time.Second)
	if c := condition(t, train, operation.ConditionFailed); c.Reason != operation.ReasonRunAfterFailed || c.Message != "spec.runAfter: DataLoad load failed, so this operation does not run" {
		t.Fatalf("Failed condition = %+v", c)
	}
	if holders(t, ns, "imagenet") != "" {
		t.Fatalf("holders after both failed: %q", holders(t, ns, "imagenet"))
	}
}
