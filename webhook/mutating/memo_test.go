package mutating_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/sluice-data/sluice/webhook/mutating"
)

// TestMemoUnderConcurrentRequests: Pods that differ in one label or
// annotation each get their own answer from a handler that remembers
// decisions in a memo too small for all of them (evicting as it goes),
// with requests arriving concurrently (run with -race: remembered inputs
// are compared while other requests read theirs), the same answers as a
// handler that remembers nothing.
func TestMemoUnderConcurrentRequests(t *testing.T) {
	var reqs []admission.Request
	for _, labels := range []map[string]string{
		{"fuse.serverful.fluid.io/inject": "true"},
		{"serverless.fluid.io/inject": "true"},
		{"serverless.fluid.io/inject": "true", "fluid.io/dataset.imagenet.sched": "required"},
		{"fuse.serverful.fluid.io/inject": "true", "fluid.io/dataset.imagenet.sched": "required"},
		nil,
	} {
		for _, annotated := range []bool{false, true} {
			pod := datasetPod(labels)
			if annotated {
				pod.Annotations = map[string]string{"sidecar.fluid.io/skip-precheck": "true"}
			}
			reqs = append(reqs, podRequest(t, pod, admissionv1.Create))
		}
	}
	ctx := context.Background()
	plain := handler(t)
	want := make([]string, len(reqs))
	for i, r := range reqs {
		want[i] = answer(plain.Handle(ctx, r))
	}
	if want[0] == want[2] || want[0] == want[8] {
		t.Fatalf("the Pods are not told apart without a memo: %s", want[0])
	}
	h := handler(t)
	h.Pipeline.Memo = mutating.NewMemo(4, 1<<20)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 200 {
				i := (n*7 + g) % len(reqs)
				if got := answer(h.Handle(ctx, reqs[i])); got != want[i] {
					errs <- fmt.Errorf("Pod %d: %s, want %s", i, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if h.Pipeline.Memo.Len() == 0 {
		t.Error("nothing was remembered")
	}
}

// answer is what an admission response says: allowed, its patch (its
// operations sorted: those of one map's keys come in no order), its
// warnings and its message.
func answer(r admission.Response) string {
	ops := make([]string, len(r.Patches))
	for i, op := range r.Patches {
		b, err := json.Marshal(op)
		if err != nil {
			panic(err) // patches of JSON values always marshal
		}
		ops[i] = string(b)
	}
	slices.Sort(ops)
	return fmt.Sprintf("%v %s %q %v", r.Allowed, ops, r.Warnings, r.Result)
}
