package testenv

import (
	"context"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// maxWebhookTimeout is the longest timeoutSeconds the API server accepts.
const maxWebhookTimeout = 30 * time.Second

// stretchWebhookTimeouts stretches the timeoutSeconds of every webhook of
// the configurations StartWith installed (Options.WebhookPaths) as Stretch
// stretches waits: the webhook they call runs in the test's process, and
// in a -race build on a loaded machine it may take longer than the
// configurations' seconds to answer, which the API server would turn into
// a refused request the test did not expect. A normal build keeps them.
func stretchWebhookTimeouts(ctx context.Context, c client.Client) error {
	stretch := func(s *int32) *int32 {
		if s == nil {
			return nil
		}
		d := min(Stretch(time.Duration(*s)*time.Second), maxWebhookTimeout)
		return ptr.To(int32(d / time.Second))
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfigurationList{}
	if err := c.List(ctx, mutating); err != nil {
		return err
	}
	for i := range mutating.Items {
		cfg := &mutating.Items[i]
		for j := range cfg.Webhooks {
			cfg.Webhooks[j].TimeoutSeconds = stretch(cfg.Webhooks[j].TimeoutSeconds)
		}
		if err := c.Update(ctx, cfg); err != nil {
			return err
		}
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfigurationList{}
	if err := c.List(ctx, validating); err != nil {
		return err
	}
	for i := range validating.Items {
		cfg := &validating.Items[i]
		for j := range cfg.Webhooks {
			cfg.Webhooks[j].TimeoutSeconds = stretch(cfg.Webhooks[j].TimeoutSeconds)
		}
		if err := c.Update(ctx, cfg); err != nil {
			return err
		}
	}
	return nil
}
