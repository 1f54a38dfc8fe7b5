package certs

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// caBundles returns the caBundle of every webhook of the two webhook
// configurations, keyed by "<Kind> <name> webhook <webhook>".
func caBundles(ctx context.Context, r client.Reader, mutating, validating string) (map[string][]byte, error) {
	out := map[string][]byte{}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := r.Get(ctx, client.ObjectKey{Name: mutating}, m); err != nil {
		return nil, fmt.Errorf("reading MutatingWebhookConfiguration %s: %w", mutating, err)
	}
	for _, w := range m.Webhooks {
		out["MutatingWebhookConfiguration "+mutating+" webhook "+w.Name] = w.ClientConfig.CABundle
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := r.Get(ctx, client.ObjectKey{Name: validating}, v); err != nil {
		return nil, fmt.Errorf("reading ValidatingWebhookConfiguration %s: %w", validating, err)
	}
	for _, w := range v.Webhooks {
		out["ValidatingWebhookConfiguration "+validating+" webhook "+w.Name] = w.ClientConfig.CABundle
	}
	return out, nil
}
