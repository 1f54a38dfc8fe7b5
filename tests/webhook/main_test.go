package webhook_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/tests/testenv"
	"github.com/sluice-data/sluice/webhook"
)

var (
	env      *testenv.Env
	probeURL string
)

func TestMain(m *testing.M) {
	os.Exit(testenv.MainWith(m, &env, testenv.Options{
		WebhookPaths: []string{filepath.Join(testenv.RepoRoot(), "config", "webhook")},
	}, startWebhook))
}

// startWebhook runs `sluice webhook` in-process against the test control
// plane and waits until it is ready.
func startWebhook(ctx context.Context, e *testenv.Env) error {
	if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: webhook.DefaultNamespace}}); err != nil {
		return err
	}
	probe, err := freeAddr()
	if err != nil {
		return err
	}
	wi := e.Webhook()
	o := webhook.NewOptions()
	o.Host, o.Port, o.CertDir = wi.LocalServingHost, wi.LocalServingPort, wi.LocalServingCertDir
	o.MetricsAddr, o.ProbeAddr = "0", probe
	o.PolicyNamespaces = []string{webhook.DefaultNamespace}
	mgr, err := webhook.New(e.Config, o)
	if err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "webhook manager stopped:", err)
		}
	}()
	probeURL = "http://" + probe + "/readyz"
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(probeURL); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("webhook not ready after 60s (%s)", probeURL)
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
