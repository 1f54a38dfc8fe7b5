package devcluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/controller/helm"
)

// Where `sluice dev` installs Sluice: the chart's release name and
// namespace, which give the object names the webhook's defaults expect
// (webhook/certs.NewConfig).
const (
	releaseName = "sluice"
	namespace   = "sluice-system"
)

// devValues are the chart values of the dev install: one replica of each
// component, no CSI plugin (no kubelet runs here to call it).
var devValues = map[string]any{
	"controller": map[string]any{"replicas": 1, "leaderElect": false},
	"webhook":    map[string]any{"replicas": 1},
	"csi":        map[string]any{"enabled": false},
}

// installedKinds are the rendered kinds `sluice dev` applies (the
// admission policies too: they confine the local controller as they would
// the installed one). The
// Deployments (and their Service and PodDisruptionBudget) are left out:
// their Pods would only be pretended by kwok, so the controller and the
// webhook run as local processes instead, as those Deployments' service
// accounts.
var installedKinds = map[string]bool{
	"ServiceAccount": true, "ClusterRole": true, "ClusterRoleBinding": true, "Role": true, "RoleBinding": true,
	"Secret": true, "ConfigMap": true, "MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
}

// install renders charts/sluice with devValues through the Helm SDK and
// applies its CRDs and installedKinds, with every webhook's clientConfig
// rewritten from the chart's Service to webhookURL (where the local webhook
// serves; its self-managed certificate is also for "localhost").
func install(ctx context.Context, out io.Writer, c client.Client, cfg *rest.Config, chartDir, webhookURL string) error {
	chart, err := helm.LoadChart(os.DirFS(chartDir))
	if err != nil {
		return fmt.Errorf("loading the platform chart from %s: %w", chartDir, err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	var objs []*unstructured.Unstructured
	for _, crd := range chart.CRDObjects() {
		o, err := decode(crd.File.Data)
		if err != nil {
			return fmt.Errorf("%s: %w", crd.Filename, err)
		}
		objs = append(objs, o...)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	version, err := dc.ServerVersion()
	if err != nil {
		return fmt.Errorf("reading the API server's version: %w", err)
	}
	rendered, err := helm.RenderFor(ctx, chart, devValues, releaseName, namespace, version.GitVersion)
	if err != nil {
		return err
	}
	for _, name := range helm.SortedKeys(rendered) {
		o, err := decode([]byte(rendered[name]))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		objs = append(objs, o...)
	}
	// CRDs, then RBAC and the rest, webhook configurations last: a webhook
	// configured before its server serves would turn requests away.
	sort.SliceStable(objs, func(i, j int) bool { return installOrder(objs[i]) < installOrder(objs[j]) })
	applied := map[string]int{}
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" && !installedKinds[o.GetKind()] {
			continue
		}
		if err := pointWebhooksAt(o, webhookURL); err != nil {
			return err
		}
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		applied[o.GetKind()]++
	}
	fmt.Fprintf(out, "installed from %s (Helm SDK render, dev values): %s\n", chartDir, summary(applied))
	fmt.Fprintf(out, "  webhook configurations point at %s instead of the chart's Service (the webhook runs locally)\n", webhookURL)
	return nil
}

func installOrder(o *unstructured.Unstructured) int {
	switch o.GetKind() {
	case "CustomResourceDefinition":
		return 0
	case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
		return 2
	}
	return 1
}

// pointWebhooksAt replaces the Service of each webhook of a webhook
// configuration by the URL webhookURL + the Service's path.
func pointWebhooksAt(o *unstructured.Unstructured, webhookURL string) error {
	if !strings.HasSuffix(o.GetKind(), "WebhookConfiguration") {
		return nil
	}
	hooks, _, err := unstructured.NestedSlice(o.Object, "webhooks")
	if err != nil {
		return err
	}
	for i, h := range hooks {
		hook, ok := h.(map[string]any)
		if !ok {
			return fmt.Errorf("%s %s: webhook %d is not an object", o.GetKind(), o.GetName(), i)
		}
		path, _, _ := unstructured.NestedString(hook, "clientConfig", "service", "path")
		if err := unstructured.SetNestedField(hook, map[string]any{"url": webhookURL + path}, "clientConfig"); err != nil {
			return err
		}
		hooks[i] = hook
	}
	return unstructured.SetNestedSlice(o.Object, hooks, "webhooks")
}

// decode splits a YAML or JSON stream into objects, skipping empty
// documents (helm.Render separates a template's objects with "---").
func decode(data []byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split("\n"+string(data), "\n---") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return nil, err
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
	return out, nil
}

func summary(counts map[string]int) string {
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	return strings.Join(parts, ", ")
}
