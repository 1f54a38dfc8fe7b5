package devcluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/config"
	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/certs"
)

func runDev(ctx context.Context, out io.Writer, o devOptions) error {
	ctrl.SetLogger(logr.Discard())
	crds, err := loadObjects[*apiextensionsv1.CustomResourceDefinition]("crd/bases")
	if err != nil {
		return err
	}
	hooks, err := loadObjects[*admissionregistrationv1.MutatingWebhookConfiguration]("webhook")
	if err != nil {
		return err
	}
	s := sluicescheme.New()
	env := &envtest.Environment{
		BinaryAssetsDirectory: o.assets,
		CRDInstallOptions:     envtest.CRDInstallOptions{CRDs: crds},
		WebhookInstallOptions: envtest.WebhookInstallOptions{MutatingWebhooks: hooks},
		Scheme:                s,
	}
	fmt.Fprintf(out, "starting etcd and kube-apiserver from %s ...\n", o.assets)
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("starting the control plane (run 'make kube-binaries' first): %w", err)
	}
	defer func() { _ = env.Stop() }()
	// Stop the webhook's manager before the control plane (defers run last
	// first), so the API server is not kept waiting on open watches.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := writeKubeconfig(env, o.kubeconfig); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return err
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: webhook.DefaultNamespace}}); err != nil {
		return err
	}
	if err := startWebhook(ctx, cfg, &env.WebhookInstallOptions); err != nil {
		return err
	}
	if err := startController(ctx, cfg); err != nil {
		return err
	}
	fmt.Fprintf(out, "Sluice dev cluster ready: API server %s, webhook and controller running.\n  export KUBECONFIG=%s\n", cfg.Host, o.kubeconfig)
	if o.demo {
		if err := runDemo(ctx, c, out); err != nil {
			return err
		}
	}
	if o.exit {
		return nil
	}
	fmt.Fprintln(out, "serving until interrupted (Ctrl-C)")
	<-ctx.Done()
	return nil
}

// loadObjects decodes every embedded YAML file under dir into objects of type T.
func loadObjects[T client.Object](dir string) ([]T, error) {
	var out []T
	err := fs.WalkDir(config.FS, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(config.FS, p)
		if err != nil {
			return err
		}
		objs, err := sluicescheme.DecodeObjects[client.Object](bytes.NewReader(data), sluicescheme.New())
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, o := range objs {
			if t, ok := o.(T); ok {
				out = append(out, t)
			}
		}
		return nil
	})
	return out, err
}

func writeKubeconfig(env *envtest.Environment, path string) error {
	user, err := env.ControlPlane.AddUser(envtest.User{Name: "sluice-dev-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	data, err := user.KubeConfig()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// startController runs `sluice controller` in-process, without leader
// election or metrics.
func startController(ctx context.Context, cfg *rest.Config) error {
	o := controller.NewOptions()
	o.MetricsAddr, o.ProbeAddr, o.LeaderElect = "0", "0", false
	mgr, err := controller.New(cfg, o)
	if err != nil {
		return err
	}
	go func() { _ = mgr.Start(ctx) }()
	return nil
}

// startWebhook runs `sluice webhook` in-process where the installed webhook
// configuration points, and waits until it is ready.
func startWebhook(ctx context.Context, cfg *rest.Config, wi *envtest.WebhookInstallOptions) error {
	o := webhook.NewOptions()
	o.Host, o.Port, o.CertDir = wi.LocalServingHost, wi.LocalServingPort, wi.LocalServingCertDir
	o.Certs.Mode = certs.Files // envtest wrote the certificate and injected its CA
	o.MetricsAddr = "0"
	return webhook.StartLocal(ctx, cfg, o, 60*time.Second)
}
