package chart_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/crds"
	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// previousChart is the commit whose charts/sluice stands for the previous
// chart version: the last before RuntimeStatus.hostPorts (7137875) and
// the refused kinds' CRDs (831de0b) were added.
const previousChart = "7137875^"

// TestUpgradeFromPreviousChart upgrades, on the simulated cluster, a
// release of the previous chart to this one as docs/install.md says:
// `sluice crds apply` (the binary's CRDs, server-side), then helm upgrade.
// Before the CRD step the API server prunes status.hostPorts, a field
// added since; after it, the field is kept, the kinds added since are
// served, and every CRD carries the applying version. Applying them again
// from an older binary is refused, naming --allow-downgrade.
func TestUpgradeFromPreviousChart(t *testing.T) {
	t.Parallel() // its own simulated cluster: runs beside the other cluster tests
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	previous := previousChartAt(t, previousChart)
	c, err := simcluster.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cluster logs:\n%s", c.Logs(20))
		}
		if err := c.Stop(); err != nil {
			t.Logf("stopping the cluster: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	if _, err := c.AddNodes(ctx, "kwok-node", 3, 110, map[string]string{"topology.kubernetes.io/zone": "zone-a"}); err != nil {
		t.Fatal(err)
	}
	removeCRDs(ctx, t, c.Client, "data.fluid.io")
	h := newHelm(t, c.Kubeconfig, "sluice-system")

	in := action.NewInstall(h.cfg)
	in.ReleaseName, in.Namespace, in.CreateNamespace = releaseName, h.namespace, true
	in.Wait, in.Timeout = true, 4*time.Minute
	if _, err := in.RunWithContext(ctx, previous, nil); err != nil {
		t.Fatalf("helm install of the previous chart: %v", err)
	}
	// The release's namespace is outside the webhooks' reach (no webhook
	// serves on the simulated cluster).
	if got := hostPortsKept(ctx, t, c.Client, h.namespace, "before"); got {
		t.Fatal("the previous chart's CRDs kept status.hostPorts: the test does not start from older CRDs")
	}

	apply := crds.NewApplyCommand(func() (*rest.Config, error) { return clientcmd.BuildConfigFromFlags("", c.Kubeconfig) }, "0.2.0")
	apply.SetArgs(nil)
	var out strings.Builder
	apply.SetOut(&out)
	if err := apply.ExecuteContext(ctx); err != nil {
		t.Fatalf("sluice crds apply: %v", err)
	}
	embedded, err := crds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range embedded {
		if !strings.Contains(out.String(), want.Name+" serverside-applied") {
			t.Errorf("sluice crds apply did not report %s:\n%s", want.Name, out.String())
		}
		live := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Client.Get(ctx, client.ObjectKey{Name: want.Name}, live); err != nil {
			t.Errorf("CRD %s after the apply: %v", want.Name, err)
			continue
		}
		if v := live.Annotations[crds.VersionAnnotation]; v != "0.2.0" {
			t.Errorf("CRD %s: %s is %q, want 0.2.0", want.Name, crds.VersionAnnotation, v)
		}
	}
	checkCRDsEstablished(ctx, t, c.Client) // the chart's, the kinds added since among them
	if !hostPortsKept(ctx, t, c.Client, h.namespace, "after") {
		t.Error("after sluice crds apply, status.hostPorts is still pruned")
	}

	older := crds.NewApplyCommand(func() (*rest.Config, error) { return clientcmd.BuildConfigFromFlags("", c.Kubeconfig) }, "v0.1.0")
	older.SetArgs(nil)
	older.SetOut(&out)
	err = older.ExecuteContext(ctx)
	if err == nil || !strings.Contains(err.Error(), "newer than this binary's v0.1.0") || !strings.Contains(err.Error(), "--allow-downgrade") {
		t.Errorf("applying older CRDs: got %v, want a refusal naming both versions and --allow-downgrade", err)
	}

	up := action.NewUpgrade(h.cfg)
	up.Namespace, up.Wait, up.Timeout = h.namespace, true, 4*time.Minute
	rel, err := up.RunWithContext(ctx, releaseName, loadChart(t), nil)
	if err != nil {
		t.Fatalf("helm upgrade to this chart: %v", err)
	}
	checkObjects(ctx, t, c.Client, rel, true)
	dep := &unstructured.Unstructured{}
	dep.SetAPIVersion("apps/v1")
	dep.SetKind("Deployment")
	if err := c.Client.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: "sluice-webhook"}, dep); err != nil {
		t.Fatal(err)
	}
	if pc, _, _ := unstructured.NestedString(dep.Object, "spec", "template", "spec", "priorityClassName"); pc != "system-cluster-critical" {
		t.Errorf("the upgraded webhook's priorityClassName is %q, want system-cluster-critical", pc)
	}
}

// previousChartAt loads charts/sluice as of commit, from the repository's
// history.
func previousChartAt(t *testing.T, commit string) *chart.Chart {
	t.Helper()
	dir := t.TempDir()
	archive := exec.Command("git", "-C", testenv.RepoRoot(), "archive", "--format=tar", commit, "charts/sluice")
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	untar.Stdin = pipe
	var stderr strings.Builder
	archive.Stderr = &stderr
	if err := untar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s charts/sluice (the test needs the repository's history, not a shallow clone): %v: %s", commit, err, stderr.String())
	}
	if err := untar.Wait(); err != nil {
		t.Fatal(err)
	}
	ch, err := loader.LoadDir(dir + "/charts/sluice")
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// hostPortsKept writes a JuiceFSRuntime's status.hostPorts and says
// whether the API server kept them (a CRD without the field prunes it).
func hostPortsKept(ctx context.Context, t *testing.T, c client.Client, ns, name string) bool {
	t.Helper()
	rt := &unstructured.Unstructured{}
	rt.SetAPIVersion("data.fluid.io/v1alpha1")
	rt.SetKind("JuiceFSRuntime")
	rt.SetNamespace(ns)
	rt.SetName(name)
	if err := c.Create(ctx, rt); err != nil {
		t.Fatalf("creating JuiceFSRuntime %s: %v", name, err)
	}
	if err := unstructured.SetNestedField(rt.Object, map[string]any{"worker.rpc": int64(20001)}, "status", "hostPorts"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, rt); err != nil {
		t.Fatalf("writing JuiceFSRuntime %s's status: %v", name, err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(rt.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(rt), got); err != nil {
		t.Fatal(err)
	}
	port, found, _ := unstructured.NestedInt64(got.Object, "status", "hostPorts", "worker.rpc")
	return found && port == 20001
}
