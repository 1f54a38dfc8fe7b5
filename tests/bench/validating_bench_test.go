package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
)

func review(b *testing.B, kind string, obj client.Object) admission.Request {
	b.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		b.Fatal(err)
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "bench", Kind: metav1.GroupVersionKind{Group: datav1alpha1.GroupName, Version: "v1alpha1", Kind: kind},
		Operation: admissionv1.Create, Namespace: obj.GetNamespace(), Name: obj.GetName(), Object: runtime.RawExtension{Raw: raw},
	}}
}

// BenchmarkValidateRuntime measures a JuiceFSRuntime CREATE through the
// validating policies with 1,000 runtimes in the webhook's caches.
func BenchmarkValidateRuntime(b *testing.B) {
	r, engine := setup(b)
	live, err := client.New(env.Config, client.Options{Scheme: sluicescheme.New()})
	if err != nil {
		b.Fatal(err)
	}
	h := webhook.NewValidatingHandler(engine, r, live, 30*time.Second)
	reqs := make([]admission.Request, 100)
	for i := range reqs {
		rt := testobj.JuiceFSRuntime(fmt.Sprintf("new-%03d", i), benchNamespace, 2,
			testobj.Level(datav1alpha1.Memory, "/dev/shm", "2Gi"), testobj.Level(datav1alpha1.SSD, "/mnt/a,/mnt/b", "100Gi"))
		reqs[i] = review(b, "JuiceFSRuntime", rt)
	}
	ctx := context.Background()
	samples := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		resp := h.Handle(ctx, reqs[i%len(reqs)])
		samples = append(samples, time.Since(t0))
		if !resp.Allowed {
			b.Fatalf("denied: %+v", resp.Result)
		}
	}
	b.StopTimer()
	reportPercentiles(b, samples)
}

// BenchmarkDataLoadClaim measures a DataLoad CREATE including its claim,
// written to the real API server (a Get and a status Update of the Dataset).
// Each request claims one of the 1,000 datasets in turn; the grace period is
// zero so that the previous pass's claims (whose DataLoads were never
// stored) are released by the next one, as the webhook would after 30s.
func BenchmarkDataLoadClaim(b *testing.B) {
	r, engine := setup(b)
	live, err := client.New(env.Config, client.Options{Scheme: sluicescheme.New()})
	if err != nil {
		b.Fatal(err)
	}
	h := webhook.NewValidatingHandler(engine, r, live, 0)
	ctx := context.Background()
	samples := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		req := review(b, "DataLoad", testobj.DataLoad(fmt.Sprintf("load-%06d", i), benchNamespace, datasetName(i%benchDatasets)))
		b.StartTimer()
		t0 := time.Now()
		resp := h.Handle(ctx, req)
		samples = append(samples, time.Since(t0))
		if !resp.Allowed {
			b.Fatalf("request %d denied: %+v", i, resp.Result)
		}
	}
	b.StopTimer()
	reportPercentiles(b, samples)
}
