package gate

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/admission"
	celplugin "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
)

// Gate holds one mutating webhook configuration.
type Gate struct {
	hooks    []webhook.WebhookAccessor
	compiler celplugin.ConditionCompiler
}

// New returns the Gate of cfg.
func New(cfg *admissionregistrationv1.MutatingWebhookConfiguration) *Gate {
	g := &Gate{compiler: celplugin.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))}
	cfg = cfg.DeepCopy()
	for i := range cfg.Webhooks {
		h := &cfg.Webhooks[i]
		// Defaulted as the API server stores them: no selector selects
		// everything (a nil one would parse to a selector of nothing).
		if h.NamespaceSelector == nil {
			h.NamespaceSelector = &metav1.LabelSelector{}
		}
		if h.ObjectSelector == nil {
			h.ObjectSelector = &metav1.LabelSelector{}
		}
		g.hooks = append(g.hooks, webhook.NewMutatingWebhookAccessor(fmt.Sprintf("%s/%d", cfg.Name, i), cfg.Name, h))
	}
	return g
}

// Verdict is which webhook a request reaches, or why none does.
type Verdict struct {
	// Webhook is the name of the first webhook called; "" for none.
	Webhook string
	// Skipped says, for each webhook not called, why.
	Skipped []string
}

var (
	podsResource = metav1.GroupVersionResource{Version: "v1", Resource: "pods"}
	podKind      = corev1.SchemeGroupVersion.WithKind("Pod")
)

// PodCreate decides for the creation of pod in namespace ns (its labels,
// as the API server keeps them, include kubernetes.io/metadata.name) by
// u. An error is a selector or match condition the API server could not
// evaluate either (it would refuse the Pod for a webhook that fails
// closed).
func (g *Gate) PodCreate(ctx context.Context, pod *corev1.Pod, ns *corev1.Namespace, u user.Info) (Verdict, error) {
	pod = pod.DeepCopy()
	pod.APIVersion, pod.Kind = podKind.GroupVersion().String(), podKind.Kind
	attr := admission.NewAttributesRecord(pod, nil, podKind, ns.Name, pod.Name, podKind.GroupVersion().WithResource(podsResource.Resource), "",
		admission.Create, &metav1.CreateOptions{}, false, u)
	var v Verdict
	for _, h := range g.hooks {
		why, err := g.skip(ctx, h, attr, pod, ns)
		if err != nil {
			return Verdict{}, fmt.Errorf("webhook %s: %w", h.GetName(), err)
		}
		if why == "" {
			v.Webhook = h.GetName()
			return v, nil
		}
		v.Skipped = append(v.Skipped, h.GetName()+": "+why)
	}
	return v, nil
}

// skip says why h is not called for attr, "" when it is.
func (g *Gate) skip(ctx context.Context, h webhook.WebhookAccessor, attr admission.Attributes, pod *corev1.Pod, ns *corev1.Namespace) (string, error) {
	nsSel, err := h.GetParsedNamespaceSelector()
	if err != nil {
		return "", err
	}
	if !nsSel.Matches(labels.Set(ns.Labels)) {
		return fmt.Sprintf("namespace %s is not selected (%s)", ns.Name, nsSel), nil
	}
	objSel, err := h.GetParsedObjectSelector()
	if err != nil {
		return "", err
	}
	if !objSel.Matches(labels.Set(pod.Labels)) {
		return fmt.Sprintf("the Pod's labels are not selected (%s)", objSel), nil
	}
	matched := false
	for _, r := range h.GetRules() {
		if (&rules.Matcher{Rule: r, Attr: attr}).Matches() {
			matched = true
			break
		}
	}
	if !matched {
		return "no rule matches a Pod CREATE", nil
	}
	if len(h.GetMatchConditions()) == 0 {
		return "", nil
	}
	versioned, err := admission.NewVersionedAttributes(attr, podKind, nil)
	if err != nil {
		return "", err
	}
	res := h.GetCompiledMatcher(g.compiler).Match(ctx, versioned, nil, nil)
	switch {
	case res.Error != nil:
		return "", res.Error
	case !res.Matches:
		return "match condition " + res.FailedConditionName + " is false", nil
	}
	return "", nil
}
