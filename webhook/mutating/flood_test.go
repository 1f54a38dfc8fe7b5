package mutating_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/webhook/mutating"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/utils/ptr"
)

// TestDryRunFloodKeepsTheHeapBounded (audit M9): 1,024 dry-run creates of
// Pods mounting a dataset PVC, each with a unique 200 KiB annotation (free
// for a sender: nothing is stored), go through the handler with the
// decision cache as the webhook sizes it by default (4,096 decisions,
// 64 MiB of inputs): 200 MiB of inputs, three times what the cache may
// keep, and fewer than its count of decisions, so that only its bytes
// bound it. The cache stays within its bytes and the heap below 512 MiB;
// before, the cache kept every input, several times their 200 MiB as Rego
// values.
func TestDryRunFloodKeepsTheHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("1,024 admissions of 200 KiB Pods")
	}
	h := handler(t)
	memo := mutating.NewMemo(4096, 64<<20)
	h.Pipeline.Memo = memo
	pad := strings.Repeat("x", 200<<10)
	ctx := context.Background()
	for i := range 1024 {
		pod := datasetPod(nil)
		pod.Annotations = map[string]string{"flood": fmt.Sprint(i) + pad}
		req := podRequest(t, pod, admissionv1.Create)
		req.DryRun = ptr.To(true)
		if resp := h.Handle(ctx, req); !resp.Allowed {
			t.Fatalf("request %d: %+v", i, resp.Result)
		}
	}
	if memo.Len() == 0 || memo.Bytes() > 64<<20 {
		t.Fatalf("the decision cache holds %d decisions of %d MiB, want some and at most 64 MiB", memo.Len(), memo.Bytes()>>20)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 512<<20 {
		t.Fatalf("heap after the flood: %d MiB, want under 512 MiB", ms.HeapAlloc>>20)
	}
	t.Logf("after 1,024 dry-run Pods of 200 KiB: %d decisions cached (%d MiB of inputs), heap %d MiB", memo.Len(), memo.Bytes()>>20, ms.HeapAlloc>>20)
	runtime.KeepAlive(h)
}
