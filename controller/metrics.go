package controller

import (
	"context"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/metrics"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/internal/buildinfo"
)

// setupMetrics registers the build-info metric, the Datasets' and
// runtimes' metrics (of the runtime kinds the engines serve, each once) and
// the data operations' with controller-runtime's registry, which the manager serves on --metrics-bind-address, until the
// manager stops. One manager at a time may export them in a process.
func setupMetrics(mgr manager.Manager, registry []engines.Engine, failures *metrics.Failures, ops *metrics.Operations) error {
	c := &metrics.Collector{Reader: mgr.GetCache(), Elected: mgr.Elected(), Failures: failures,
		OperationKinds: datav1alpha1.OperationKinds(), Log: mgr.GetLogger().WithName("metrics")}
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
	if err := buildinfo.Register(ctrlmetrics.Registry, "controller"); err != nil {
		return fmt.Errorf("registering the build-info metric: %w", err)
	}
	cs := append([]prometheus.Collector{c}, ops.Collectors()...)
	for _, col := range cs {
		if err := ctrlmetrics.Registry.Register(col); err != nil {
			return fmt.Errorf("registering the Dataset, runtime and data-operation metrics: %w", err)
		}
	}
	return mgr.Add(unregisterOnStop{cs})
}

// unregisterOnStop unregisters its collectors when the manager stops, on
// every replica (leading or not).
type unregisterOnStop struct{ cs []prometheus.Collector }

func (u unregisterOnStop) Start(ctx context.Context) error {
	<-ctx.Done()
	for _, c := range u.cs {
		ctrlmetrics.Registry.Unregister(c)
	}
	return nil
}

func (unregisterOnStop) NeedLeaderElection() bool { return false }
