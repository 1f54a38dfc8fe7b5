package chart_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/sluice-data/sluice/tests/support/monitoring"
)

// monitoringValues turn every monitoring object on.
const monitoringValues = `
monitoring:
  prometheusServiceAccount: {name: prometheus-k8s, namespace: monitoring}
  labels: {release: kube-prometheus-stack}
  interval: 30s
  podMonitor: {enabled: true, authorization: {secretName: prometheus-scrape-token}}
  serviceMonitor: {enabled: true}
  prometheusRule: {enabled: true}
  dashboard: {enabled: true, namespace: grafana}
`

// metricsComponents are the components whose metrics the monitors scrape,
// with their workload.
var metricsComponents = []struct{ component, kind string }{
	{"controller", "Deployment"}, {"webhook", "Deployment"}, {"csi", "DaemonSet"},
}

// decodeStrict decodes a rendered object into a typed one, failing on a
// field the type does not have (a misspelt or misplaced field the API
// server would prune).
func decodeStrict(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	raw, err := json.Marshal(o.Object)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

// podTemplate is a component's workload's Pod template.
func podTemplate(t *testing.T, objs []*unstructured.Unstructured, kind, component string) corev1.PodTemplateSpec {
	t.Helper()
	o := find(t, objs, kind, "sluice-"+component)
	if kind == "DaemonSet" {
		ds := &appsv1.DaemonSet{}
		decodeStrict(t, o, ds)
		return ds.Spec.Template
	}
	d := &appsv1.Deployment{}
	decodeStrict(t, o, d)
	return d.Spec.Template
}

// hasPort reports whether a container of the Pod declares the named port
// on containerPort.
func hasPort(pod corev1.PodTemplateSpec, name string, containerPort int32) bool {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == name && p.ContainerPort == containerPort {
				return true
			}
		}
	}
	return false
}

// TestMonitoringOffByDefault: the default render has no prometheus-operator
// object, no metrics Service, no dashboard and no binding for Prometheus.
func TestMonitoringOffByDefault(t *testing.T) {
	for _, o := range render(t, nil) {
		if strings.HasPrefix(o.GetAPIVersion(), "monitoring.coreos.com/") || strings.HasSuffix(o.GetName(), "-metrics") ||
			strings.HasSuffix(o.GetName(), "-dashboard") || (o.GetKind() == "ClusterRoleBinding" && o.GetName() == "sluice-metrics-reader") {
			t.Errorf("%s %s rendered by default", o.GetKind(), o.GetName())
		}
	}
}

// checkEndpoint checks what PodMonitor and ServiceMonitor endpoints share:
// the metrics port, the scheme the metrics are served with, the
// self-signed certificate accepted when secure, the controller's honored
// labels and the job label the alerts select.
func checkEndpoint(t *testing.T, component string, secure bool, port, path string, scheme *monitoringv1.Scheme, honor bool, tls *monitoringv1.SafeTLSConfig, relabel []monitoringv1.RelabelConfig) {
	t.Helper()
	want := monitoringv1.Scheme("http")
	if secure {
		want = "https"
	}
	if port != "metrics" || path != "/metrics" || scheme == nil || *scheme != want {
		t.Errorf("%s: port %q path %q scheme %v; want metrics, /metrics, %s", component, port, path, scheme, want)
	}
	if secure != (tls != nil && tls.InsecureSkipVerify != nil && *tls.InsecureSkipVerify) {
		t.Errorf("%s: tlsConfig %+v with secure %t; the self-signed certificate is accepted exactly when secure", component, tls, secure)
	}
	if honor != (component == "controller") {
		t.Errorf("%s: honorLabels %t; only the controller's (its series carry the Dataset's namespace)", component, honor)
	}
	job := "sluice-" + component
	if len(relabel) != 1 || relabel[0].TargetLabel != "job" || relabel[0].Replacement == nil || *relabel[0].Replacement != job {
		t.Errorf("%s: relabelings %+v; want job=%s", component, relabel, job)
	}
}

// TestMonitorsScrapeTheMetrics decodes the PodMonitors and ServiceMonitors
// with prometheus-operator's own types: one of each per component, each
// selecting exactly that component's Pods in the release's namespace on
// their metrics port, over HTTPS with a token when the metrics are secure
// (a PodMonitor's from the named Secret, a ServiceMonitor's Prometheus's
// own, whose ServiceAccount is bound to the metrics-reader ClusterRole),
// over HTTP with none when not.
func TestMonitorsScrapeTheMetrics(t *testing.T) {
	for _, secure := range []bool{true, false} {
		vals := parseValues(t, monitoringValues)
		vals["metrics"] = map[string]any{"secure": secure}
		objs := render(t, vals)
		for _, c := range metricsComponents {
			pod := podTemplate(t, objs, c.kind, c.component)
			if !hasPort(pod, "metrics", 8080) {
				t.Errorf("%s: no container port metrics (8080)", c.component)
			}
			pm := &monitoringv1.PodMonitor{}
			decodeStrict(t, find(t, objs, "PodMonitor", "sluice-"+c.component), pm)
			if pm.Namespace != namespace || !slices.Equal(pm.Spec.NamespaceSelector.MatchNames, []string{namespace}) || pm.Labels["release"] != "kube-prometheus-stack" {
				t.Errorf("PodMonitor %s: namespace %s, namespaceSelector %+v, labels %v", pm.Name, pm.Namespace, pm.Spec.NamespaceSelector, pm.Labels)
			}
			sel := labels.Set(pm.Spec.Selector.MatchLabels).AsSelector()
			if !sel.Matches(labels.Set(pod.Labels)) || len(pm.Spec.Selector.MatchExpressions) != 0 {
				t.Errorf("PodMonitor %s selects %v, not the %s Pods (%v)", pm.Name, pm.Spec.Selector, c.component, pod.Labels)
			}
			for _, other := range metricsComponents {
				if other != c && sel.Matches(labels.Set(podTemplate(t, objs, other.kind, other.component).Labels)) {
					t.Errorf("PodMonitor %s also selects the %s Pods", pm.Name, other.component)
				}
			}
			if len(pm.Spec.PodMetricsEndpoints) != 1 {
				t.Fatalf("PodMonitor %s: %d endpoints", pm.Name, len(pm.Spec.PodMetricsEndpoints))
			}
			ep := pm.Spec.PodMetricsEndpoints[0]
			if err := ep.Validate(); err != nil {
				t.Errorf("PodMonitor %s: %v", pm.Name, err)
			}
			checkEndpoint(t, c.component, secure, ptrValue(ep.Port), ep.Path, ep.Scheme, ep.HonorLabels, ep.TLSConfig, ep.RelabelConfigs)
			if string(ep.Interval) != "30s" {
				t.Errorf("PodMonitor %s: interval %q", pm.Name, ep.Interval)
			}
			auth := ep.Authorization
			if secure != (auth != nil && auth.Type == "Bearer" && auth.Credentials != nil && auth.Credentials.Name == "prometheus-scrape-token" && auth.Credentials.Key == "token") {
				t.Errorf("PodMonitor %s: authorization %+v with secure %t", pm.Name, auth, secure)
			}

			sm := &monitoringv1.ServiceMonitor{}
			decodeStrict(t, find(t, objs, "ServiceMonitor", "sluice-"+c.component), sm)
			svc := &corev1.Service{}
			decodeStrict(t, find(t, objs, "Service", "sluice-"+c.component+"-metrics"), svc)
			if !labels.Set(sm.Spec.Selector.MatchLabels).AsSelector().Matches(labels.Set(svc.Labels)) || !slices.Equal(sm.Spec.NamespaceSelector.MatchNames, []string{namespace}) {
				t.Errorf("ServiceMonitor %s selects %v, not its Service (%v)", sm.Name, sm.Spec.Selector, svc.Labels)
			}
			for _, o := range objs {
				if o.GetKind() == "Service" && o.GetName() != svc.Name && labels.Set(sm.Spec.Selector.MatchLabels).AsSelector().Matches(labels.Set(o.GetLabels())) {
					t.Errorf("ServiceMonitor %s also selects Service %s", sm.Name, o.GetName())
				}
			}
			if !labels.Set(svc.Spec.Selector).AsSelector().Matches(labels.Set(pod.Labels)) || len(svc.Spec.Ports) != 1 ||
				svc.Spec.Ports[0].Name != "metrics" || svc.Spec.Ports[0].TargetPort.String() != "metrics" {
				t.Errorf("Service %s: selector %v, ports %+v; want the %s Pods' metrics port", svc.Name, svc.Spec.Selector, svc.Spec.Ports, c.component)
			}
			if len(sm.Spec.Endpoints) != 1 {
				t.Fatalf("ServiceMonitor %s: %d endpoints", sm.Name, len(sm.Spec.Endpoints))
			}
			sep := sm.Spec.Endpoints[0]
			if err := sep.Validate(); err != nil {
				t.Errorf("ServiceMonitor %s: %v", sm.Name, err)
			}
			var tls *monitoringv1.SafeTLSConfig
			if sep.TLSConfig != nil {
				tls = &sep.TLSConfig.SafeTLSConfig
			}
			checkEndpoint(t, c.component, secure, sep.Port, sep.Path, sep.Scheme, sep.HonorLabels, tls, sep.RelabelConfigs)
			// Deprecated in favour of authorization, which reads Secrets only: a
			// ServiceMonitor's one way to send Prometheus's own token.
			tokenFile := sep.BearerTokenFile //nolint:staticcheck // see above
			if want := map[bool]string{true: "/var/run/secrets/kubernetes.io/serviceaccount/token"}[secure]; tokenFile != want {
				t.Errorf("ServiceMonitor %s: bearerTokenFile %q, want %q", sm.Name, tokenFile, want)
			}
		}

		var binding *unstructured.Unstructured
		for _, o := range objs {
			if o.GetKind() == "ClusterRoleBinding" && o.GetName() == "sluice-metrics-reader" {
				binding = o
			}
		}
		if !secure {
			if binding != nil {
				t.Error("a metrics-reader binding rendered with plain metrics")
			}
			continue
		}
		crb := &rbacv1.ClusterRoleBinding{}
		decodeStrict(t, binding, crb)
		role := &rbacv1.ClusterRole{}
		decodeStrict(t, find(t, objs, "ClusterRole", crb.RoleRef.Name), role)
		if crb.RoleRef.Name != "sluice-metrics-reader" || len(crb.Subjects) != 1 || crb.Subjects[0] != (rbacv1.Subject{Kind: "ServiceAccount", Name: "prometheus-k8s", Namespace: "monitoring"}) {
			t.Errorf("binding %+v; want Prometheus's ServiceAccount bound to sluice-metrics-reader", crb)
		}
		if len(role.Rules) != 1 || !slices.Equal(role.Rules[0].NonResourceURLs, []string{"/metrics"}) || !slices.Equal(role.Rules[0].Verbs, []string{"get"}) {
			t.Errorf("metrics-reader rules %+v", role.Rules)
		}
	}
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// TestPodMonitorNeedsAToken: secure metrics and a PodMonitor with neither
// a token Secret nor a scrape class fail the install, naming the values.
func TestPodMonitorNeedsAToken(t *testing.T) {
	_, err := dryRun(loadChart(t), parseValues(t, `monitoring: {podMonitor: {enabled: true}}`), namespace)
	if err == nil || !strings.Contains(err.Error(), "monitoring.podMonitor.authorization.secretName") || !strings.Contains(err.Error(), "monitoring.scrapeClass") {
		t.Errorf("render: %v; want an error naming the values that give the token", err)
	}
	for _, ok := range []string{
		`monitoring: {podMonitor: {enabled: true}, scrapeClass: kubernetes-token}`,
		`{metrics: {secure: false}, monitoring: {podMonitor: {enabled: true}}}`,
	} {
		if _, err := dryRun(loadChart(t), parseValues(t, ok), namespace); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestMonitoringValuesSchema: the schema refuses what the monitors could
// not use, naming the value.
func TestMonitoringValuesSchema(t *testing.T) {
	for _, tc := range []struct{ values, want string }{
		{`monitoring: {interval: 30 seconds}`, "interval"},
		{`monitoring: {prometheusServiceAccount: {name: prometheus}}`, "namespace"},
		{`monitoring: {prometheusRule: {datasetNotBoundFor: soon}}`, "datasetNotBoundFor"},
		{`monitoring: {prometheusRule: {webhookLatencySeconds: 0}}`, "webhookLatencySeconds"},
		{`monitoring: {serviceMonitor: {enabled: true, port: 9090}}`, "port"},
	} {
		_, err := dryRun(loadChart(t), parseValues(t, tc.values), namespace)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error naming %s", tc.values, err, tc.want)
		}
	}
}

// TestDashboardConfigMap: the dashboard's ConfigMap, for the Grafana
// sidecar, holds the chart's dashboard file as it is, and that file is a
// Grafana dashboard whose queries are PromQL.
func TestDashboardConfigMap(t *testing.T) {
	objs := render(t, parseValues(t, monitoringValues))
	cm := &corev1.ConfigMap{}
	decodeStrict(t, find(t, objs, "ConfigMap", "sluice-dashboard"), cm)
	if cm.Namespace != "grafana" || cm.Labels["grafana_dashboard"] != "1" {
		t.Errorf("dashboard ConfigMap in %q labelled %v; want grafana, grafana_dashboard=1", cm.Namespace, cm.Labels)
	}
	file, err := os.ReadFile(filepath.Join(chartDir(), "..", "..", monitoring.DashboardPath))
	if err != nil {
		t.Fatal(err)
	}
	// YAML's block scalar drops the file's final newline.
	if got := cm.Data[filepath.Base(monitoring.DashboardPath)]; strings.TrimSpace(got) != strings.TrimSpace(string(file)) || len(cm.Data) != 1 {
		t.Errorf("the ConfigMap's data (%d keys, %d bytes) is not the dashboard file (%d bytes)", len(cm.Data), len(got), len(file))
	}
	// The file's queries are checked against the components' endpoints by
	// tests/controller and tests/webhook; here, that it is the dashboard.
	if _, err := monitoring.DashboardQueries(); err != nil {
		t.Error(err)
	}
}
