package audit

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
	sluicescheme "github.com/sluice-data/sluice/api/scheme"
)

func finding(ns, name, rule string, r policyreportv1alpha2.Result) Finding {
	return Finding{Object: corev1.ObjectReference{Kind: "Dataset", Namespace: ns, Name: name}, Policy: PolicyValidating, Rule: rule, Message: "m", Result: r}
}

func TestReportCountsPassesAndListsTheRest(t *testing.T) {
	for _, tc := range []struct {
		name      string
		namespace string
		findings  []Finding
		// want: the summary, the results listed, the omitted annotation.
		sum     policyreportv1alpha2.Summary
		listed  int
		omitted string
		kind    string
	}{
		{"passes only", "a", []Finding{finding("a", "x", "", "pass"), finding("a", "y", "", "pass")},
			policyreportv1alpha2.Summary{Pass: 2}, 0, "", "PolicyReport"},
		{"a denial and an error", "a", []Finding{finding("a", "x", "r1", "fail"), finding("a", "y", "", "error"), finding("a", "z", "", "pass")},
			policyreportv1alpha2.Summary{Pass: 1, Fail: 1, Error: 1}, 2, "", "PolicyReport"},
		{"a rule in warn mode and an excepted one", "a", []Finding{finding("a", "x", "r1", "warn"), finding("a", "x", "r2", "skip")},
			policyreportv1alpha2.Summary{Warn: 1, Skip: 1}, 2, "", "PolicyReport"},
		{"cluster-scoped", "", []Finding{finding("", "p", "r", "fail")},
			policyreportv1alpha2.Summary{Fail: 1}, 1, "", "ClusterPolicyReport"},
		{"more than MaxResults", "a", func() []Finding {
			out := make([]Finding, MaxResults+3)
			for i := range out {
				out[i] = finding("a", "x", "r", "fail")
			}
			return out
		}(), policyreportv1alpha2.Summary{Fail: MaxResults + 3}, MaxResults, "3", "PolicyReport"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Report(tc.namespace, tc.findings, time.Unix(100, 0))
			sum, results := contentOf(r)
			if sum != tc.sum || len(results) != tc.listed || r.GetAnnotations()[OmittedAnnotation] != tc.omitted ||
				r.GetObjectKind().GroupVersionKind().Kind != tc.kind || r.GetName() != ReportName || r.GetLabels()[ManagedByLabel] != ManagedBy {
				t.Fatalf("report %s: summary %+v, %d results, annotations %v", r.GetObjectKind().GroupVersionKind(), sum, len(results), r.GetAnnotations())
			}
			for _, res := range results {
				if res.Result == policyreportv1alpha2.ResultPass || res.Source != ReportSource || len(res.Resources) != 1 || res.Timestamp.Seconds != 100 {
					t.Fatalf("result %+v", res)
				}
			}
		})
	}
}

// TestWriterReplacesOnlyChangedReports: the first report is created, the
// same findings later cost no request, a change replaces the report whole,
// and a namespace with nothing to audit loses its report.
func TestWriterReplacesOnlyChangedReports(t *testing.T) {
	s := sluicescheme.New()
	if err := policyreportv1alpha2.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	requests := 0
	c := fake.NewClientBuilder().WithScheme(s).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			requests++
			return c.Get(ctx, key, obj, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			requests++
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			requests++
			return c.Update(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			requests++
			return c.Delete(ctx, obj, opts...)
		},
	}).Build()
	ctx := context.Background()
	w := &Writer{Client: c}
	if err := w.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	put := func(findings []Finding, at int64, wantWritten bool, wantRequests int) {
		t.Helper()
		requests = 0
		written, err := w.Put(ctx, Report("a", findings, time.Unix(at, 0)))
		if err != nil || written != wantWritten || requests != wantRequests {
			t.Fatalf("written %v (want %v), %d requests (want %d), err %v", written, wantWritten, requests, wantRequests, err)
		}
	}
	failing := []Finding{finding("a", "x", "r1", "fail")}
	put(failing, 1, true, 2)                                  // GET (absent), CREATE
	put(failing, 2, false, 0)                                 // same findings, a later time: nothing
	put([]Finding{finding("a", "x", "", "pass")}, 3, true, 2) // GET, UPDATE
	got := &policyreportv1alpha2.PolicyReport{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "a", Name: ReportName}, got); err != nil || got.Summary.Pass != 1 || len(got.Results) != 0 {
		t.Fatalf("stored report %+v, %v", got, err)
	}
	put(nil, 4, true, 1) // nothing to audit: DELETE
	put(nil, 5, false, 0)

	// A new writer (another replica's term) finds the stored report by Seed.
	put(failing, 6, true, 2)
	w2 := &Writer{Client: c}
	if err := w2.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	requests = 0
	if written, err := w2.Put(ctx, Report("a", failing, time.Unix(7, 0))); err != nil || written || requests != 0 {
		t.Fatalf("after Seed, an unchanged report: written %v, %d requests, %v", written, requests, err)
	}
}
