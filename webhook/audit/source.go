package audit

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// DefaultPageSize is how many Pods one list request returns.
const DefaultPageSize = 100

// Source lists the stored objects to audit, one namespace at a time, so
// that only one namespace's Pods and findings are held at once.
type Source struct {
	// Objects serves Namespaces, Sluice objects and ThinRuntimeProfiles:
	// the webhook's cache, or the objects the command read.
	Objects client.Reader
	// Pods serves Pods, listed PageSize at a time: the API server (the
	// webhook does not cache Pods), or the objects the command read.
	Pods client.Reader
	// PageSize bounds each Pod list (DefaultPageSize when 0).
	PageSize int64
	// Limiter, if set, spaces the Pod list requests.
	Limiter *rate.Limiter
	// Namespaces, if set, are the namespaces audited; otherwise every
	// Namespace Objects lists.
	Namespaces []string
	// Skip are namespaces never audited: those the webhooks never see
	// (kube-system, Sluice's own, the chart's webhook.excludeNamespaces),
	// whose objects no rule judges.
	Skip []string
}

// ListNamespaces returns the namespaces to audit, sorted.
func (s *Source) ListNamespaces(ctx context.Context) ([]string, error) {
	names := s.Namespaces
	if names == nil {
		var list corev1.NamespaceList
		if err := s.Objects.List(ctx, &list); err != nil {
			return nil, fmt.Errorf("listing namespaces: %w", err)
		}
		for i := range list.Items {
			names = append(names, list.Items[i].Name)
		}
	}
	out := make([]string, 0, len(names))
	for _, ns := range names {
		if !slices.Contains(s.Skip, ns) {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out, nil
}

// EachObject calls fn with each Sluice object of namespace (Datasets,
// runtimes, operations), or with each ThinRuntimeProfile for "", and its
// kind.
func (s *Source) EachObject(ctx context.Context, namespace string, fn func(kind string, obj client.Object)) error {
	if namespace == "" {
		var list datav1alpha1.ThinRuntimeProfileList
		if err := s.Objects.List(ctx, &list); err != nil {
			return fmt.Errorf("listing ThinRuntimeProfiles: %w", err)
		}
		for i := range list.Items {
			fn("ThinRuntimeProfile", &list.Items[i])
		}
		return nil
	}
	in := client.InNamespace(namespace)
	var datasets datav1alpha1.DatasetList
	if err := s.Objects.List(ctx, &datasets, in); err != nil {
		return fmt.Errorf("listing Datasets in %s: %w", namespace, err)
	}
	for i := range datasets.Items {
		fn("Dataset", &datasets.Items[i])
	}
	for _, k := range datav1alpha1.RuntimeKinds() {
		list, _ := datav1alpha1.NewRuntimeList(k.Kind)
		if err := s.Objects.List(ctx, list, in); err != nil {
			return fmt.Errorf("listing %ss in %s: %w", k.Kind, namespace, err)
		}
		for _, rt := range list.GetRuntimes() {
			fn(k.Kind, rt)
		}
	}
	for _, k := range datav1alpha1.OperationKinds() {
		list, _ := datav1alpha1.NewOperationList(string(k))
		if err := s.Objects.List(ctx, list, in); err != nil {
			return fmt.Errorf("listing %ss in %s: %w", k, namespace, err)
		}
		for _, op := range list.GetOperations() {
			fn(string(k), op)
		}
	}
	return nil
}

// EachPod calls fn with each Pod of namespace that InScope accepts, one
// page at a time.
func (s *Source) EachPod(ctx context.Context, namespace string, fn func(*corev1.Pod)) error {
	size := s.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	opts := []client.ListOption{client.InNamespace(namespace), client.Limit(size)}
	for cont := ""; ; {
		if s.Limiter != nil {
			if err := s.Limiter.Wait(ctx); err != nil {
				return err
			}
		}
		var page corev1.PodList
		if err := s.Pods.List(ctx, &page, append(opts, client.Continue(cont))...); err != nil {
			return fmt.Errorf("listing Pods in %s: %w", namespace, err)
		}
		for i := range page.Items {
			if InScope(&page.Items[i]) {
				fn(&page.Items[i])
			}
		}
		if cont = page.Continue; cont == "" {
			return nil
		}
	}
}

// Namespace audits one namespace ("" for the cluster-scoped
// ThinRuntimeProfiles): its findings, sorted.
func (s *Source) Namespace(ctx context.Context, a *Auditor, namespace string) ([]Finding, error) {
	var out []Finding
	err := s.EachObject(ctx, namespace, func(kind string, obj client.Object) {
		out = append(out, a.Object(ctx, kind, obj)...)
	})
	if err != nil {
		return nil, err
	}
	if namespace != "" {
		if err := s.EachPod(ctx, namespace, func(pod *corev1.Pod) { out = append(out, a.Pod(ctx, pod)...) }); err != nil {
			return nil, err
		}
	}
	Sort(out)
	return out, nil
}
