package controller

import (
	"context"
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/sluice-data/sluice/controller/metrics"
	"github.com/sluice-data/sluice/engines"
)

// setupMetrics registers the Datasets' and runtimes' metrics (of the
// runtime kinds the engines serve, each once) with controller-runtime's
// registry, which the manager serves on --metrics-bind-address, until the
// manager stops. One manager at a time may export them in a process.
func setupMetrics(mgr manager.Manager, registry []engines.Engine, failures *metrics.Failures) error {
	c := &metrics.Collector{Reader: mgr.GetCache(), Elected: mgr.Elected(), Failures: failures,
		Log: mgr.GetLogger().WithName("metrics")}
	seen := map[string]bool{}
	for _, eng := range registry {
		gvk, err := apiutil.GVKForObject(eng.NewObject(), mgr.GetScheme())
		if err != nil {
			return fmt.Errorf("the %s engine's runtime kind: %w", eng.Type(), err)
		}
		if seen[gvk.Kind] {
			continue
		}
		seen[gvk.Kind] = true
		listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
		if _, err := mgr.GetScheme().New(listGVK); err != nil {
			return fmt.Errorf("the %s engine's runtime list kind: %w", eng.Type(), err)
		}
		scheme := mgr.GetScheme()
		c.Kinds = append(c.Kinds, metrics.RuntimeKind{Type: strings.ToLower(gvk.Kind), NewList: func() client.ObjectList {
			o, _ := scheme.New(listGVK) // known to the scheme: checked above
			return o.(client.ObjectList)
		}})
	}
	if err := ctrlmetrics.Registry.Register(c); err != nil {
		return fmt.Errorf("registering the Dataset and runtime metrics: %w", err)
	}
	return mgr.Add(unregisterOnStop{c})
}

// unregisterOnStop unregisters its collector when the manager stops, on
// every replica (leading or not).
type unregisterOnStop struct{ c *metrics.Collector }

func (u unregisterOnStop) Start(ctx context.Context) error {
	<-ctx.Done()
	ctrlmetrics.Registry.Unregister(u.c)
	return nil
}

func (unregisterOnStop) NeedLeaderElection() bool { return false }
