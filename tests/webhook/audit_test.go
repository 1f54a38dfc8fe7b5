package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook/audit"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/policycmd"
)

// tighterPaths is candidate policy data that allows tieredstore levels in
// ns under /dev/shm only.
func tighterPaths(ns string) string {
	return "validating:\n  guards:\n    " + ns + ": {tieredstorePaths: [/dev/shm]}\n"
}

// TestAuditListsWhatATighterGuardWouldRefuse: a runtime the webhook
// admitted is stored; `sluice policy audit --kubeconfig` with a candidate
// that narrows the tieredstore paths lists it (exit 1), without the
// candidate lists nothing; the in-cluster audit, run over the candidate
// bundle, writes a PolicyReport the API server stores and returns, and
// replaces it when the bundle changes back, then removes it when the
// namespace has nothing left to audit.
func TestAuditListsWhatATighterGuardWouldRefuse(t *testing.T) {
	ctx := ctxT(t)
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(testenv.RepoRoot(), "charts", "sluice", "files", "policyreports")}, ErrorIfPathMissing: true,
	}); err != nil {
		t.Fatalf("installing the PolicyReport CRDs: %v", err)
	}
	ns := env.Namespace(t)
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: ns}}
	rt.Spec.TieredStore.Levels = []datav1alpha1.Level{{MediumType: "SSD", Path: "/mnt/ssd", Quota: ptrQuantity("10Gi")}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatalf("the webhook refuses a runtime its defaults allow: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.yaml"), []byte(tighterPaths(ns)), 0o600); err != nil {
		t.Fatal(err)
	}
	kubeconfig := env.Kubeconfig(t)

	out, errOut, err := runPolicy(t, "audit", "--kubeconfig", kubeconfig, "--namespace", ns)
	if err != nil || !strings.Contains(out, "No stored object is refused") {
		t.Fatalf("live bundle: err %v, out %q, stderr %q", err, out, errOut)
	}
	out, _, err = runPolicy(t, "audit", "--kubeconfig", kubeconfig, "--namespace", ns, "--policies", dir)
	var exit *policycmd.ExitError
	if !errors.As(err, &exit) || exit.Code != 1 || !strings.Contains(out, "JuiceFSRuntime  cache") || !strings.Contains(out, "tieredstore-path") {
		t.Fatalf("candidate bundle: err %v, out:\n%s", err, out)
	}

	// The in-cluster audit, over the candidate bundle first.
	s := sluicescheme.New()
	if err := policyreportv1alpha2.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	engine := policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery)
	if err := engine.Load(ctx, candidateBundle(t, ns)); err != nil {
		t.Fatal(err)
	}
	runner := &audit.Runner{
		Auditor: audit.New(engine, c, "sluice-system", true),
		Source:  &audit.Source{Objects: c, Pods: c, Namespaces: []string{ns}},
		Writer:  &audit.Writer{Client: c},
		Engine:  engine, Interval: time.Hour, BundlePoll: 50 * time.Millisecond,
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); runner.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })

	report := waitForReport(t, c, ns, func(r *policyreportv1alpha2.PolicyReport) bool { return r.Summary.Fail == 1 })
	if got := report.Results; len(got) != 1 || got[0].Rule != "tieredstore-path" || got[0].Resources[0].Name != "cache" ||
		got[0].Result != policyreportv1alpha2.ResultFail || got[0].Policy != audit.PolicyValidating {
		t.Fatalf("results = %+v", got)
	}

	// Back to the live bundle: the report is replaced, nothing fails.
	live, err := policy.ProfileBundle("")
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.Load(ctx, live); err != nil {
		t.Fatal(err)
	}
	report = waitForReport(t, c, ns, func(r *policyreportv1alpha2.PolicyReport) bool { return r.Summary.Fail == 0 })
	if report.Summary.Pass != 1 || len(report.Results) != 0 {
		t.Fatalf("after the bundle change: %+v", report)
	}

	// Nothing left to audit: the next audit removes the report.
	stop()
	<-done
	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Cycle(ctx); err != nil {
		t.Fatal(err)
	}
	err = c.Get(ctx, client.ObjectKey{Namespace: ns, Name: audit.ReportName}, &policyreportv1alpha2.PolicyReport{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("the report of a namespace with nothing to audit: %v", err)
	}
}

func candidateBundle(t *testing.T, ns string) *policy.Bundle {
	t.Helper()
	b, err := policy.ProfileBundle("")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.AddFile("candidate.yaml", tighterPaths(ns), "test"); err != nil {
		t.Fatal(err)
	}
	return b
}

func waitForReport(t *testing.T, c client.Client, ns string, ok func(*policyreportv1alpha2.PolicyReport) bool) *policyreportv1alpha2.PolicyReport {
	t.Helper()
	r := &policyreportv1alpha2.PolicyReport{}
	deadline := time.Now().Add(testenv.Stretch(15 * time.Second))
	for {
		err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: audit.ReportName}, r)
		if err == nil && ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("report %s/%s: %v, last %+v", ns, audit.ReportName, err, r)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func ptrQuantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

func runPolicy(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := policycmd.NewCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}
