package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	kscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	apireg "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cmscheme "github.com/cert-manager/cert-manager/pkg/client/clientset/versioned/scheme"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"
)

type options struct {
	kubeconfig, master string
	namespace          string
	metricsAddr        string
	leaderElect        bool
}

func main() {
	o := options{}
	// A flag set of its own: controller-runtime registers --kubeconfig on
	// the default one.
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: in-cluster configuration)")
	fs.StringVar(&o.master, "master", "", "the API server's address, overriding the kubeconfig's")
	fs.StringVar(&o.namespace, "namespace", "", "inject only from and into this namespace (default: all namespaces)")
	fs.StringVar(&o.metricsAddr, "metrics-listen-address", "0", "address of the metrics endpoint; 0 disables it")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "accepted for cert-manager's flag set; only false is supported (run one process)")
	klog.InitFlags(fs)
	_ = fs.Parse(os.Args[1:]) // ExitOnError
	logf.InitLogs()
	ctrl.SetLogger(logf.Log)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "cert-manager-cainjector:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if o.leaderElect {
		return errors.New("--leader-elect=true is not supported by this build: run one process with --leader-elect=false")
	}
	cfg, err := clientcmd.BuildConfigFromFlags(o.master, o.kubeconfig)
	if err != nil {
		return fmt.Errorf("loading the API server's configuration: %w", err)
	}
	cfg = util.RestConfigWithUserAgent(cfg, "cainjector")

	scheme := runtime.NewScheme()
	utilruntime.Must(kscheme.AddToScheme(scheme))
	utilruntime.Must(cmscheme.AddToScheme(scheme))
	utilruntime.Must(apiext.AddToScheme(scheme))
	utilruntime.Must(apireg.AddToScheme(scheme))
	var namespaces map[string]cache.Config
	if o.namespace != "" {
		namespaces = map[string]cache.Config{o.namespace: {}}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: o.metricsAddr},
		Cache:   cache.Options{ReaderFailOnMissingInformer: true, DefaultNamespaces: namespaces},
		// As cert-manager's cainjector: Secrets are read from the API server
		// when an injectable is reconciled, never cached whole.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}

	// Injecting from Certificates needs their CRD; cert-manager's cainjector
	// waits for it too.
	direct, err := client.New(cfg, client.Options{Scheme: scheme, Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return err
	}
	err = wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		err := direct.Get(ctx, types.NamespacedName{Name: "certificates.cert-manager.io"}, &apiext.CustomResourceDefinition{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return fmt.Errorf("waiting for the CRD certificates.cert-manager.io: %w", err)
	}

	err = cainjector.RegisterAllInjectors(ctx, mgr, cainjector.SetupOptions{
		Namespace:                    o.namespace,
		EnableCertificatesDataSource: true,
		EnabledReconcilersFor: map[string]bool{
			cainjector.MutatingWebhookConfigurationName:   true,
			cainjector.ValidatingWebhookConfigurationName: true,
			cainjector.APIServiceName:                     true,
			cainjector.CustomResourceDefinitionName:       true,
		},
	})
	if err != nil {
		return fmt.Errorf("registering the injectors: %w", err)
	}
	return mgr.Start(ctx)
}
