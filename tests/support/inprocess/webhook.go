package inprocess

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/sluice-data/sluice/internal/lazy"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/certs"
)

// Webhook runs `sluice webhook` in-process, reaching e's API server through
// cfg (e.Config, or a copy with a transport wrapper or another identity),
// serving on the local address and with the certificate envtest set up for
// the webhook configurations it installed (Options.WebhookPaths), policies
// read from webhook.DefaultNamespace, which it creates unless it exists.
// tune, when not nil, changes the options further. It returns once the
// webhook is ready, with every value computed once (internal/lazy)
// computed, or fails after timeout, stretched under the race detector
// (testenv.Stretch: readiness waits for the policy bundle's compilation,
// the code the race detector slows most, and test packages run side by
// side).
func Webhook(ctx context.Context, e *testenv.Env, cfg *rest.Config, timeout time.Duration, tune func(*webhook.Options)) error {
	if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: webhook.DefaultNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	wi := e.Webhook()
	o := webhook.NewOptions()
	o.Host, o.Port, o.CertDir = wi.LocalServingHost, wi.LocalServingPort, wi.LocalServingCertDir
	o.Certs.Mode = certs.Files // envtest wrote the certificate and injected its CA
	o.MetricsAddr = "0"
	o.PolicyNamespaces = []string{webhook.DefaultNamespace}
	if tune != nil {
		tune(o)
	}
	if err := webhook.StartLocal(ctx, cfg, o, testenv.Stretch(timeout)); err != nil {
		return err
	}
	// A ready webhook leaves nothing computed once to its first
	// admissions (a race build took over a second for trust's tables).
	if p := lazy.Pending(); len(p) > 0 {
		return fmt.Errorf("the webhook reported ready with values computed once still pending: %v", p)
	}
	return nil
}
