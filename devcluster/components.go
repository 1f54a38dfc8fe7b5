package devcluster

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/rest"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/certs"
)

// serviceAccount returns cfg acting as the chart's ServiceAccount of a
// component (sluice-controller, sluice-webhook), so that the component may
// do exactly what the chart's RBAC grants it.
func serviceAccount(cfg *rest.Config, component string) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + namespace + ":" + releaseName + "-" + component,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
	return cfg
}

// freePort returns a TCP port on 127.0.0.1 nobody listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// webhookURL is where the local webhook serves: the self-managed
// certificate is issued for "localhost" besides the Service's names.
func webhookURL(port int) string { return "https://localhost:" + strconv.Itoa(port) }

// startWebhook runs `sluice webhook` in-process, self-managed as the chart
// installs it: it fills the chart's empty certificate Secret with a CA and
// a serving certificate (also for localhost), injects the CA into both
// webhook configurations and serves on port. It returns once /readyz
// succeeds, that is once both configurations trust its certificate.
func startWebhook(ctx context.Context, cfg *rest.Config, port int, runDir string) error {
	o := webhook.NewOptions()
	o.Host, o.Port, o.CertDir, o.MetricsAddr = "127.0.0.1", port, filepath.Join(runDir, "webhook-certs"), "0"
	o.PolicyNamespaces = []string{namespace}
	o.Certs = certs.NewConfig(namespace)
	o.Certs.Mode = certs.SelfManaged
	o.Certs.ExtraDNSNames = []string{"localhost"}
	if err := o.Validate(); err != nil {
		return err
	}
	if err := webhook.StartLocal(ctx, serviceAccount(cfg, "webhook"), o, 2*time.Minute); err != nil {
		return fmt.Errorf("starting the webhook: %w", err)
	}
	return nil
}

// startController runs `sluice controller` in-process as the chart's
// controller ServiceAccount, without leader election or metrics. If the
// controller stops before ctx ends, its error is sent on failed.
func startController(ctx context.Context, cfg *rest.Config, failed chan<- error) error {
	o := controller.NewOptions()
	o.MetricsAddr, o.ProbeAddr, o.LeaderElect = "0", "0", false
	o.CacheRefresh = 5 * time.Second
	o.FuseRecords = namespace // as the chart sets it
	o.PolicyNamespaces = []string{namespace}
	// The chart's image at the dev tag: kwok pulls and runs no image.
	o.SluiceImage = "ghcr.io/sluice-data/sluice:dev"
	o.Engines = registry.Default(registry.Options{SluiceImage: o.SluiceImage})
	if err := controller.StartLocal(ctx, serviceAccount(cfg, "controller"), o, func(err error) {
		failed <- fmt.Errorf("the controller stopped: %w", err)
	}); err != nil {
		return fmt.Errorf("starting the controller: %w", err)
	}
	return nil
}
