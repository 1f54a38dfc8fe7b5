package policycmd

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/audit"
	"github.com/sluice-data/sluice/webhook/policy"
)

// clusterSource reads the cluster read-only: every kind the webhook's
// pipelines consult is listed once into memory, as the webhook's caches
// hold them; Pods are listed a page at a time, one namespace after the
// other, from the API server.
func (o *auditOptions) clusterSource(ctx context.Context) (*audit.Source, []corev1.ConfigMap, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.kubeContext}).ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	s := sluicescheme.New()
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, nil, err
	}
	var objs []client.Object
	for _, kind := range webhook.Informed() {
		items, err := listAll(ctx, c, s, kind)
		if err != nil {
			return nil, nil, err
		}
		objs = append(objs, items...)
	}
	var cms []corev1.ConfigMap
	for _, ns := range o.policyNamespaces {
		var list corev1.ConfigMapList
		if err := c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{policy.BundleLabel: "true"}); err != nil {
			return nil, nil, fmt.Errorf("listing the policy ConfigMaps of %s: %w", ns, err)
		}
		cms = append(cms, list.Items...)
	}
	return &audit.Source{Objects: staticReader(s, objs), Pods: c, Namespaces: o.namespaces}, cms, nil
}

// listAll lists every object of obj's kind.
func listAll(ctx context.Context, c client.Client, s *runtime.Scheme, obj client.Object) ([]client.Object, error) {
	gvk, err := apiutil.GVKForObject(obj, s)
	if err != nil {
		return nil, err
	}
	gvk.Kind += "List"
	raw, err := s.New(gvk)
	if err != nil {
		return nil, err
	}
	list := raw.(client.ObjectList)
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(items))
	for _, it := range items {
		if o, ok := it.(client.Object); ok {
			out = append(out, o)
		}
	}
	return out, nil
}
