package mutating_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/mutating"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

func objects(t testing.TB) []client.Object {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "policies", "testdata", "mutating", "serverful-affinity", "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	objs, err := sluicescheme.DecodeObjects[client.Object](f, sluicescheme.New())
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func handler(t testing.TB, mutators ...mutating.Mutator) *mutating.Handler {
	t.Helper()
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	p, err := fixture.NewPipeline(context.Background(), b, objects(t), true)
	if err != nil {
		t.Fatal(err)
	}
	// An engine of its own: the fixture's are shared between the
	// pipelines of one bundle, and some tests load other bundles.
	p.Engine = policy.NewEngine(policies.MutatingQuery)
	if err := p.Engine.Load(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if mutators != nil {
		p.Mutators = mutators
	}
	return &mutating.Handler{Pipeline: p}
}

func podRequest(t *testing.T, pod *corev1.Pod, op admissionv1.Operation) admission.Request {
	t.Helper()
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "u1", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Operation: op,
		Namespace: "team-a", Object: runtime.RawExtension{Raw: raw},
	}}
}

func datasetPod(labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "i", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "imagenet"}}}},
		},
	}
}

func TestHandlerGuards(t *testing.T) {
	h := handler(t)
	serverful := map[string]string{"fuse.serverful.fluid.io/inject": "true"}
	tests := []struct {
		name        string
		pod         *corev1.Pod
		op          admissionv1.Operation
		wantAllowed bool
		wantPatch   bool
		wantMessage string
	}{
		{"serverful dataset Pod is mutated", datasetPod(serverful), admissionv1.Create, true, true, ""},
		{"update is not mutated", datasetPod(serverful), admissionv1.Update, true, false, ""},
		{"opt-out label", datasetPod(map[string]string{"fuse.serverful.fluid.io/inject": "true", "fluid.io/enable-injection": "false"}), admissionv1.Create, true, false, ""},
		{"already injected", func() *corev1.Pod {
			p := datasetPod(map[string]string{"serverless.fluid.io/inject": "true", "done.sidecar.fluid.io/inject": "true"})
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "fluid-fuse-0", Image: "fuse"})
			return p
		}(), admissionv1.Create, true, false, ""},
		// The done label without an injected FUSE container is the Pod
		// author's claim only (reliability audit M4): the Pod is mutated.
		{"done label alone", datasetPod(map[string]string{"fuse.serverful.fluid.io/inject": "true", "done.sidecar.fluid.io/inject": "true"}), admissionv1.Create, true, true, ""},
		{"namespace mismatch is denied", func() *corev1.Pod { p := datasetPod(serverful); p.Namespace = "other"; return p }(), admissionv1.Create, false, false, `namespace "other" differs`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.Handle(context.Background(), podRequest(t, tt.pod, tt.op))
			if resp.Allowed != tt.wantAllowed || (len(resp.Patches) > 0) != tt.wantPatch {
				t.Fatalf("allowed=%v patches=%d, want allowed=%v patch=%v (%+v)", resp.Allowed, len(resp.Patches), tt.wantAllowed, tt.wantPatch, resp.Result)
			}
			if tt.wantMessage != "" && !strings.Contains(resp.Result.Message, tt.wantMessage) {
				t.Fatalf("message %q does not contain %q", resp.Result.Message, tt.wantMessage)
			}
		})
	}
}

type panicky struct{}

func (panicky) Name() string { return "panicky" }
func (panicky) Mutate(*corev1.Pod, *decision.Mutating, []snapshot.DatasetVolume) error {
	panic("boom")
}

func TestMutatorPanicDeniesNamingTheMutator(t *testing.T) {
	h := handler(t, panicky{})
	resp := h.Handle(context.Background(), podRequest(t, datasetPod(map[string]string{"fuse.serverful.fluid.io/inject": "true"}), admissionv1.Create))
	if resp.Allowed || len(resp.Patches) > 0 {
		t.Fatal("a panicking mutator must deny, with no patch")
	}
	if !strings.Contains(resp.Result.Message, "mutator panicky: panic: boom") {
		t.Fatalf("message = %q", resp.Result.Message)
	}
}

// TestPolicyWithWrongShapeDeniesNamingThePolicy: a policy whose decision
// does not match the schema refuses a Pod that asked for injection, naming
// the policy.
func TestPolicyWithWrongShapeDeniesNamingThePolicy(t *testing.T) {
	h := handler(t)
	b := policy.NewBundle()
	b.Modules["m.rego"] = "package sluice.mutating\ndecision := {\"sidecars\": \"not a list\"}"
	if err := h.Pipeline.Engine.Load(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	resp := h.Handle(context.Background(), podRequest(t, datasetPod(map[string]string{"serverless.fluid.io/inject": "true"}), admissionv1.Create))
	if resp.Allowed || !strings.Contains(resp.Result.Message, "policy data.sluice.mutating.decision") {
		t.Fatalf("allowed=%v message=%q", resp.Allowed, resp.Result.Message)
	}
}

type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Mutate(*corev1.Pod, *decision.Mutating, []snapshot.DatasetVolume) error {
	return errors.New("the cache is gone")
}

// TestErrorsFailOpenOnlyForPodsThatDidNotAsk (reliability audit H3): an
// error while mutating (a policy that fails at evaluation, a mutator, a
// panic) refuses a Pod labelled for injection, which must not run
// half-done, but admits any other Pod unmutated with a warning: those reach
// the webhook whose failurePolicy is Ignore, and an answer that refuses
// would stop every StatefulSet in the cluster.
func TestErrorsFailOpenOnlyForPodsThatDidNotAsk(t *testing.T) {
	evalError := func(t *testing.T) *mutating.Handler {
		h := handler(t)
		b, err := policy.DefaultBundle()
		if err != nil {
			t.Fatal(err)
		}
		b.Modules["platform.rego"] = "package sluice.mutating\n\nimport rego.v1\n\nwarnings contains m if { m := sprintf(\"%v\", [to_number(input.pod.metadata.name)]) }\n"
		if err := h.Pipeline.Engine.Load(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		return h
	}
	for name, h := range map[string]func(*testing.T) *mutating.Handler{
		"a policy that fails at evaluation": evalError,
		"a mutator that fails":              func(t *testing.T) *mutating.Handler { return handler(t, failing{}) },
		"a mutator that panics":             func(t *testing.T) *mutating.Handler { return handler(t, panicky{}) },
	} {
		t.Run(name, func(t *testing.T) {
			h := h(t)
			resp := h.Handle(context.Background(), podRequest(t, datasetPod(nil), admissionv1.Create))
			if !resp.Allowed || len(resp.Patches) > 0 || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "admitted without Sluice's data-affinity optimisation") {
				t.Errorf("a Pod that did not ask: allowed=%v patches=%d warnings=%q (%+v)", resp.Allowed, len(resp.Patches), resp.Warnings, resp.Result)
			}
			for _, label := range datav1alpha1.FailClosedLabels {
				resp := h.Handle(context.Background(), podRequest(t, datasetPod(map[string]string{label: "true"}), admissionv1.Create))
				if resp.Allowed || len(resp.Patches) > 0 || resp.Result.Code != 500 {
					t.Errorf("a Pod labelled %s: allowed=%v patches=%d code %d, want refused with 500", label, resp.Allowed, len(resp.Patches), resp.Result.Code)
				}
			}
		})
	}
}

// TestFailClosedLabelsMatchTheWebhookConfigurations: the handler's notion
// of a Pod that asked for injection is the labelled-for-fluid match
// condition of config/webhook and of the chart, whose two webhooks split
// Pods between failurePolicy Fail and Ignore.
func TestFailClosedLabelsMatchTheWebhookConfigurations(t *testing.T) {
	for _, f := range []string{"../../config/webhook/mutating.yaml", "../../charts/sluice/templates/webhook/webhookconfigurations.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		quoted := make([]string, len(datav1alpha1.FailClosedLabels))
		for i, l := range datav1alpha1.FailClosedLabels {
			quoted[i] = strconv.Quote(l)
		}
		list := "k in [" + strings.Join(quoted, ", ") + "]"
		// The chart's file renders the validating configuration after the
		// mutating one; its workload webhooks read the same labels.
		mutatingPart, _, _ := strings.Cut(string(data), "\n---\n")
		if n := strings.Count(mutatingPart, list); n != 2 {
			t.Errorf("%s: %q appears %d times, want in both conditions (labelled-for-fluid and its negation)", f, list, n)
		}
	}
}
