package webhookaudit_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/audit"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestTheWebhookReportsWhatAPolicyChangeWouldRefuse: a runtime the
// defaults admit is stored; a policy ConfigMap narrowing its namespace's
// tieredstore paths is applied, and the webhook's audit (on the bundle
// change, not the hour's interval) writes the namespace's PolicyReport
// naming the runtime and the rule; with the rule in warn mode, and then an
// exception covering the runtime, the report says warn, and then skip
// naming the exception; the ConfigMap removed, the report is replaced by
// one where it passes.
func TestTheWebhookReportsWhatAPolicyChangeWouldRefuse(t *testing.T) {
	ctx := testenv.Context(t)
	ns := env.Namespace(t)
	q := resource.MustParse("10Gi")
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: ns}}
	rt.Spec.TieredStore.Levels = []datav1alpha1.Level{{MediumType: "SSD", Path: "/mnt/ssd", Quota: &q}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatalf("the defaults refuse the runtime: %v", err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "tighter", Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"data.yaml": "validating:\n  guards:\n    " + ns + ": {tieredstorePaths: [/dev/shm]}\n"},
	}
	if err := env.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })

	s := sluicescheme.New()
	if err := policyreportv1alpha2.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	report := waitForReport(t, c, ns, func(r *policyreportv1alpha2.PolicyReport) bool { return r.Summary.Fail == 1 })
	if got := report.Results; len(got) != 1 || got[0].Rule != "tieredstore-path" || got[0].Resources[0].Name != "cache" || got[0].Resources[0].Kind != "JuiceFSRuntime" {
		t.Fatalf("results = %+v", got)
	}

	// The rule in warn mode, then an exception for the runtime: the
	// report says so (issue 33), instead of passing the runtime silently.
	for _, step := range []struct {
		enforcement string
		result      policyreportv1alpha2.Result
		outcome     string
		exception   string
	}{
		{"enforcement:\n  rules:\n    tieredstore-path: {mode: warn}\n", policyreportv1alpha2.ResultWarn, "warned", ""},
		{"enforcement:\n  exceptions:\n    old-cache: {rules: [tieredstore-path], namespaces: [" + ns + "], names: [cache]}\n", policyreportv1alpha2.ResultSkip, "excepted", "old-cache"},
	} {
		before := cm.DeepCopy()
		cm.Data["enforcement.yaml"] = step.enforcement
		if err := env.Client.Patch(ctx, cm, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
		report = waitForReport(t, c, ns, func(r *policyreportv1alpha2.PolicyReport) bool {
			return len(r.Results) == 1 && r.Results[0].Result == step.result
		})
		got := report.Results[0]
		if got.Rule != "tieredstore-path" || got.Properties[audit.PropertyOutcome] != step.outcome || got.Properties[audit.PropertyException] != step.exception || report.Summary.Fail != 0 {
			t.Fatalf("with %q: summary %+v, result %+v", step.enforcement, report.Summary, got)
		}
	}

	if err := env.Client.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	report = waitForReport(t, c, ns, func(r *policyreportv1alpha2.PolicyReport) bool { return r.Summary.Pass == 1 })
	if report.Summary != (policyreportv1alpha2.Summary{Pass: 1}) || len(report.Results) != 0 {
		t.Fatalf("after the ConfigMap's removal: %+v", report)
	}
}

func waitForReport(t *testing.T, c client.Client, ns string, ok func(*policyreportv1alpha2.PolicyReport) bool) *policyreportv1alpha2.PolicyReport {
	t.Helper()
	r := &policyreportv1alpha2.PolicyReport{}
	deadline := time.Now().Add(testenv.Stretch(25 * time.Second))
	for {
		err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: audit.ReportName}, r)
		if err == nil && ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("report %s/%s: %v, last %+v", ns, audit.ReportName, err, r)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
