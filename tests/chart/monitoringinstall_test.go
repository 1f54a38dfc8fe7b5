package chart_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// promOperatorCRDs are prometheus-operator's PodMonitor, ServiceMonitor and
// PrometheusRule CRDs, generated from the monitoring API module in go.mod
// by `make prometheus-operator-crds`.
func promOperatorCRDs(t *testing.T) string {
	t.Helper()
	path := filepath.Join(testenv.BinDir(), "prometheus-operator-crds.yaml")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("prometheus-operator's CRDs: run `make prometheus-operator-crds`: %v", err)
	}
	return path
}

// TestMonitoringInstallsThroughTheAPIServer installs the chart with every
// monitoring object on through a real API server that serves
// prometheus-operator's CRDs (their OpenAPI schemas and CEL rules, as
// controller-gen generates them from the operator's API types): the API
// server accepts the PodMonitors, ServiceMonitors, PrometheusRule, metrics
// Services, the dashboard's ConfigMap and Prometheus's binding, and keeps
// every field the chart wrote (none is pruned as unknown). A PodMonitor
// the schema refuses is refused, so the CRDs do validate. The install does
// not wait for the workloads (TestInstallIntoSimulatedCluster runs them on
// a simulated cluster), so an API server alone serves it.
func TestMonitoringInstallsThroughTheAPIServer(t *testing.T) {
	t.Parallel() // its own API server: runs beside the cluster tests
	if testing.Short() {
		t.Skip("starts an API server")
	}
	crds := promOperatorCRDs(t)
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Logf("stopping the API server: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{Paths: []string{crds}, ErrorIfPathMissing: true}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "grafana"}}); err != nil {
		t.Fatal(err)
	}

	h := newHelm(t, env.Kubeconfig(t), "sluice-monitoring")
	in := action.NewInstall(h.cfg)
	in.ReleaseName, in.Namespace, in.CreateNamespace = releaseName, h.namespace, true
	in.SkipCRDs = true // the control plane serves data.fluid.io already
	in.Timeout = 2 * time.Minute
	rel, err := in.RunWithContext(ctx, loadChart(t), parseValues(t, monitoringValues))
	if err != nil {
		t.Fatalf("helm install: %v", err)
	}
	checked := 0
	for _, o := range objects(t, rel.Manifest) {
		monitoringObject := strings.HasPrefix(o.GetAPIVersion(), "monitoring.coreos.com/") || strings.HasSuffix(o.GetName(), "-metrics") ||
			o.GetName() == "sluice-dashboard" || (o.GetKind() == "ClusterRoleBinding" && o.GetName() == "sluice-metrics-reader")
		if !monitoringObject {
			continue
		}
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(o.GroupVersionKind())
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), live); err != nil {
			t.Errorf("%s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			continue
		}
		for _, field := range []string{"spec", "data", "subjects", "roleRef"} {
			if want, ok := o.Object[field]; ok {
				if path, ok := subset(want, live.Object[field]); !ok {
					t.Errorf("%s %s: the API server did not keep %s%s as the chart wrote it", o.GetKind(), o.GetName(), field, path)
				}
			}
		}
		checked++
	}
	if checked != 3*3+3 { // a PodMonitor, ServiceMonitor and Service per component; the rule, ConfigMap, binding
		t.Errorf("checked %d monitoring objects, want 12", checked)
	}

	bad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor",
		"metadata": map[string]any{"name": "bad", "namespace": h.namespace},
		"spec": map[string]any{
			"selector":            map[string]any{},
			"podMetricsEndpoints": []any{map[string]any{"port": "metrics", "scheme": "ftp"}},
		},
	}}
	if err := env.Client.Create(ctx, bad); err == nil || !strings.Contains(err.Error(), "scheme") {
		t.Errorf("a PodMonitor scraping ftp: %v, want the API server to refuse its scheme", err)
	}
}

// subset reports whether want's every field is in got with the same value
// (got may hold more: defaults); the path of the first that is not.
func subset(want, got any) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return "", false
		}
		for k, v := range w {
			if p, ok := subset(v, g[k]); !ok {
				return "." + k + p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return "", false
		}
		for i := range w {
			if p, ok := subset(w[i], g[i]); !ok {
				return "[]" + p, false
			}
		}
		return "", true
	case string:
		// The rendered documents are read trimmed (chartrender.Objects), so a
		// block scalar at a document's end lost its final newline.
		g, ok := got.(string)
		return "", ok && strings.TrimSuffix(g, "\n") == strings.TrimSuffix(w, "\n")
	case int64, float64:
		// YAML and JSON decode whole numbers alike, as int64.
		return "", fmt.Sprint(want) == fmt.Sprint(got)
	}
	return "", reflect.DeepEqual(want, got)
}
