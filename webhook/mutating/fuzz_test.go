package mutating_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/webhook/internal/podpatch"
)

// FuzzAdmissionReview feeds arbitrary Pod JSON through the handler. It must
// never panic or fail internally; JSON that is not a Pod must be refused; for
// a Pod, sent re-encoded as the API server sends objects, any patch must
// apply, and the handler run on the patched Pod must return no patch
// (idempotence).
func FuzzAdmissionReview(f *testing.F) {
	cases, _ := filepath.Glob(filepath.Join("..", "..", "policies", "testdata", "mutating", "*", "pod.yaml"))
	for _, c := range cases {
		data, err := os.ReadFile(c)
		if err != nil {
			f.Fatal(err)
		}
		raw, err := yaml.YAMLToJSON(data)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"metadata":{"labels":{"serverless.fluid.io/inject":"true"}},"spec":{"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"imagenet"}}],"containers":[{"name":"a"}]}}`))
	f.Add([]byte(`{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}}}`))

	h := handler(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		decoded := &corev1.Pod{}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(in, decoded); err != nil {
			if resp := h.Handle(context.Background(), request(in)); resp.Allowed {
				t.Fatalf("a request that is not a Pod was allowed: %v", err)
			}
			return
		}
		raw, err := json.Marshal(decoded)
		if err != nil {
			t.Fatal(err)
		}
		resp := h.Handle(context.Background(), request(raw))
		if resp.Result != nil && strings.Contains(resp.Result.Message, "internal error") {
			t.Fatalf("handler failed internally: %s", resp.Result.Message)
		}
		if !resp.Allowed || len(resp.Patches) == 0 {
			return
		}
		patched, err := podpatch.Apply(raw, resp.Patches)
		if err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{}
		if err := json.Unmarshal(patched, pod); err != nil {
			t.Fatalf("patched object is not a Pod: %v", err)
		}
		again := h.Handle(context.Background(), request(patched))
		if len(again.Patches) > 0 {
			t.Fatalf("not idempotent: second pass over %s patches %v", patched, again.Patches)
		}
	})
}

func request(raw []byte) admission.Request {
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "fuzz", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Operation: admissionv1.Create,
		Namespace: "team-a", Object: runtime.RawExtension{Raw: raw},
	}}
}
