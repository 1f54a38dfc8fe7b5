package operations_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
)

// TestDataflowLabelsAreRecordedAndRequired (issue 32, point 7): a DataLoad
// annotated affinity.dataflow.fluid.io/labels records, where it ran, the
// node's value of those label keys; an operation after it that requires
// one runs on a node with that value, and one that requires a key the
// DataLoad did not record fails, naming the key and the annotation,
// instead of running anywhere.
func TestDataflowLabelsAreRecordedAndRequired(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", engineFake)
	node(t, "n1-"+ns, map[string]string{"example.com/gpu-model": "a100", "example.com/rack": "r7"})
	load := dataLoad(ns, "load", "imagenet")
	load.Annotations = map[string]string{datav1alpha1.AnnotationDataflowAffinityLabels: "example.com/gpu-model, example.com/absent"}
	create(t, load)
	require := func(name string, keys ...string) *datav1alpha1.DataProcess {
		var requires []datav1alpha1.Require
		for _, k := range keys {
			requires = append(requires, datav1alpha1.Require{Name: k})
		}
		return process(ns, name, "imagenet", &datav1alpha1.OperationRef{ObjectRef: datav1alpha1.ObjectRef{Kind: datav1alpha1.DataLoadKind, Name: "load"},
			AffinityStrategy: datav1alpha1.AffinityStrategy{Policy: datav1alpha1.RequireAffinityStrategy, Requires: requires}})
	}
	train, stray := require("train", "example.com/gpu-model"), require("stray", "example.com/rack")
	create(t, train)
	create(t, stray)
	job := waitJob(t, ns, "load-loader")
	ranOn(t, job, "n1-"+ns)
	finishJob(t, ns, job.Name, true)
	reaches(t, load, datav1alpha1.PhaseComplete, 10*time.Second)
	recorded := status(t, load).NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions
	if !equalExprs(recorded, []corev1.NodeSelectorRequirement{
		{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1-" + ns}},
		{Key: "example.com/gpu-model", Operator: corev1.NodeSelectorOpIn, Values: []string{"a100"}},
	}) {
		t.Fatalf("the DataLoad recorded %+v", recorded)
	}

	trainJob := waitJob(t, ns, "train-processor")
	req := trainJob.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if !equalExprs(req.NodeSelectorTerms[0].MatchExpressions, []corev1.NodeSelectorRequirement{
		{Key: "example.com/gpu-model", Operator: corev1.NodeSelectorOpIn, Values: []string{"a100"}},
	}) {
		t.Fatalf("the DataProcess's Job requires %+v", req)
	}

	reaches(t, stray, datav1alpha1.PhaseFailed, 10*time.Second)
	c := condition(t, stray, operation.ConditionFailed)
	if c == nil || c.Reason != operation.ReasonInvalidSpec || !strings.Contains(c.Message, `DataLoad load did not record node label "example.com/rack"`) ||
		!strings.Contains(c.Message, datav1alpha1.AnnotationDataflowAffinityLabels) {
		t.Fatalf("Failed condition of the operation requiring an unrecorded label = %+v", c)
	}
}
