package csi

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/sluice-data/sluice/internal/buildinfo"
	"github.com/sluice-data/sluice/internal/metricsauth"
)

// ServeMetrics serves the plugin's metrics (controller-runtime's registry:
// sluice_build_info{component="csi"}, the Go runtime's and the process's)
// on addr until ctx ends, as the controller and the webhook serve theirs:
// with secure, over HTTPS to callers the API server (cfg) authenticates and
// authorizes for get on /metrics. "0" or "" serves nothing.
func ServeMetrics(ctx context.Context, addr string, secure bool, cfg *rest.Config) error {
	if addr == "" || addr == "0" {
		return nil
	}
	if err := buildinfo.Register(ctrlmetrics.Registry, "csi"); err != nil {
		return fmt.Errorf("registering the build-info metric: %w", err)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	srv, err := metricsserver.NewServer(metricsauth.ServerOptions(addr, secure), cfg, hc)
	if err != nil {
		return fmt.Errorf("the metrics server on %s: %w", addr, err)
	}
	return srv.Start(ctx)
}
