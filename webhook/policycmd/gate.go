package policycmd

import (
	"context"
	"fmt"
	"os"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/config"
	"github.com/sluice-data/sluice/webhook/internal/gate"
)

// leftAlone says why the webhook would not see pod, "" when it would
// evaluate the policies: the API server does not send it (the
// configuration's selectors and match conditions). A Pod the webhook's own
// guards skip (mutating.Skipped) is evaluated for its deny rules only.
func (o *evalOptions) leftAlone(ctx context.Context, pod *corev1.Pod, objs []client.Object) (string, error) {
	cfg, err := o.webhookConfiguration()
	if err != nil {
		return "", err
	}
	v, err := gate.New(cfg).PodCreate(ctx, pod, namespaceOf(pod.Namespace, objs), &user.DefaultInfo{Name: o.user})
	if err != nil {
		return "", fmt.Errorf("the API server could not decide whether to call the webhook (it refuses the Pod if that webhook fails closed): %w", err)
	}
	if v.Webhook == "" {
		return "the API server does not send this Pod to Sluice's webhook (" + strings.Join(v.Skipped, "; ") + ")", nil
	}
	return "", nil
}

// webhookConfiguration reads --webhook-configuration, or the one Sluice
// ships.
func (o *evalOptions) webhookConfiguration() (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	var data []byte
	var err error
	if o.configuration == "" {
		data, err = config.FS.ReadFile("webhook/mutating.yaml")
	} else {
		data, err = os.ReadFile(o.configuration)
	}
	if err != nil {
		return nil, err
	}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := yaml.Unmarshal(data, cfg); err != nil {
		return nil, fmt.Errorf("the mutating webhook configuration: %w", err)
	}
	if cfg.Kind != "MutatingWebhookConfiguration" {
		return nil, fmt.Errorf("the mutating webhook configuration: %s is a %q", o.configuration, cfg.Kind)
	}
	return cfg, nil
}

// namespaceOf is the Namespace of that name among objs, or one as the API
// server labels every Namespace (kubernetes.io/metadata.name).
func namespaceOf(name string, objs []client.Object) *corev1.Namespace {
	for _, obj := range objs {
		if ns, ok := obj.(*corev1.Namespace); ok && ns.Name == name {
			ns = ns.DeepCopy()
			if ns.Labels == nil {
				ns.Labels = map[string]string{}
			}
			ns.Labels[corev1.LabelMetadataName] = name
			return ns
		}
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelMetadataName: name}}}
}
