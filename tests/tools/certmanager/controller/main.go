package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/klog/v2"

	controllerpkg "github.com/cert-manager/cert-manager/pkg/controller"
	"github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	crca "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	crselfsigned "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	"github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	"github.com/cert-manager/cert-manager/pkg/controller/issuers"
	// The issuer types the issuers and clusterissuers controllers can set
	// up; each registers itself with pkg/issuer.
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
)

// controllers are the controllers this command runs by default: the
// Certificate lifecycle, approval of CertificateRequests, and the SelfSigned
// and CA issuers. Each registers itself with pkg/controller when its package
// is imported above.
var controllers = []string{
	issuers.ControllerName,
	clusterissuers.ControllerName,
	trigger.ControllerName,
	keymanager.ControllerName,
	requestmanager.ControllerName,
	readiness.ControllerName,
	issuing.ControllerName,
	revisionmanager.ControllerName,
	approver.ControllerName,
	crselfsigned.CRControllerName,
	crca.CRControllerName,
}

type options struct {
	kubeconfig, master       string
	namespace                string
	clusterResourceNamespace string
	controllers              string
	workers                  int
	leaderElect              bool
}

func main() {
	o := options{}
	// A flag set of its own: controller-runtime registers --kubeconfig on
	// the default one.
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: in-cluster configuration)")
	fs.StringVar(&o.master, "master", "", "the API server's address, overriding the kubeconfig's")
	fs.StringVar(&o.namespace, "namespace", "", "watch only this namespace (default: all namespaces)")
	fs.StringVar(&o.clusterResourceNamespace, "cluster-resource-namespace", "kube-system",
		"namespace of the Secrets that ClusterIssuers reference")
	fs.StringVar(&o.controllers, "controllers", strings.Join(controllers, ","), "comma-separated controllers to run")
	fs.IntVar(&o.workers, "concurrent-workers", 5, "workers per controller")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "accepted for cert-manager's flag set; only false is supported (run one process)")
	klog.InitFlags(fs)
	_ = fs.Parse(os.Args[1:]) // ExitOnError
	logf.InitLogs()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "cert-manager-controller:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if o.leaderElect {
		return errors.New("--leader-elect=true is not supported by this build: run one process with --leader-elect=false")
	}
	known := controllerpkg.Known()
	enabled := strings.Split(o.controllers, ",")
	for _, n := range enabled {
		if _, ok := known[n]; !ok {
			names := make([]string, 0, len(known))
			for k := range known {
				names = append(names, k)
			}
			slices.Sort(names)
			return fmt.Errorf("unknown controller %q in --controllers; this build has %s", n, strings.Join(names, ", "))
		}
	}

	ctx = logf.NewContext(ctx, logf.Log, "controller")
	factory, err := controllerpkg.NewContextFactory(ctx, controllerpkg.ContextOptions{
		Kubeconfig:         o.kubeconfig,
		APIServerHost:      o.master,
		KubernetesAPIQPS:   20,
		KubernetesAPIBurst: 50,
		Namespace:          o.namespace,
		IssuerOptions:      controllerpkg.IssuerOptions{ClusterResourceNamespace: o.clusterResourceNamespace},
		// cert-manager's defaults.
		CertificateOptions: controllerpkg.CertificateOptions{
			CopiedAnnotationPrefixes:                 []string{"*", "-kubectl.kubernetes.io/", "-fluxcd.io/", "-argocd.argoproj.io/"},
			CertificateRequestMinimumBackoffDuration: time.Hour,
			CertificateRequestMaximumBackoffDuration: 32 * time.Hour,
		},
	})
	if err != nil {
		return fmt.Errorf("building the controller context: %w", err)
	}
	base, err := factory.Build()
	if err != nil {
		return fmt.Errorf("building the controller context: %w", err)
	}

	g, ctx := errgroup.WithContext(ctx)
	for _, n := range enabled {
		c, err := known[n](factory)
		if err != nil {
			return fmt.Errorf("setting up controller %s: %w", n, err)
		}
		g.Go(func() error {
			if err := c.Run(o.workers, ctx); err != nil {
				return fmt.Errorf("controller %s: %w", n, err)
			}
			return nil
		})
	}
	// The controllers registered their informers while being set up.
	base.SharedInformerFactory.Start(ctx.Done())
	base.KubeSharedInformerFactory.Start(ctx.Done())
	base.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())
	logf.FromContext(ctx).Info("started", "controllers", enabled)
	return g.Wait()
}
