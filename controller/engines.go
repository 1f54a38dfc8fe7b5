package controller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/controller/hostports"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/ufsmeta"
)

// setupRuntimes registers one runtime reconciler per engine, named after
// the runtime kind it serves (e.g. juicefsruntime); all share one host
// port allocator, as their runtimes share the nodes' ports.
func setupRuntimes(mgr manager.Manager, o *Options, helmClients *helmClients, registry []engines.Engine, failures cacheruntime.FailureCounter, guard cacheruntime.Guard,
	ports *hostports.Allocator) error {
	c := mgr.GetClient()
	for _, eng := range registry {
		gvk, err := apiutil.GVKForObject(eng.NewObject(), mgr.GetScheme())
		if err != nil {
			return fmt.Errorf("the %s engine's runtime kind: %w", eng.Type(), err)
		}
		name := strings.ToLower(gvk.Kind)
		r := &cacheruntime.Reconciler{
			Client: c, Live: mgr.GetAPIReader(), Engine: eng, Helm: helmClients.forNamespace,
			CacheRefresh: o.CacheRefresh, Concurrency: o.Concurrency, Events: mgr.GetEventRecorder("sluice-controller"),
			Failures:        failures,
			MetadataJob:     ufsmeta.Options{Image: o.SluiceImage, PullPolicy: corev1.PullIfNotPresent, Deadline: o.MetadataDeadline},
			MetadataRefresh: o.MetadataRefresh,
			FuseRecords:     o.FuseRecords,
			Guard:           guard,
			HostPorts:       ports,
		}
		if w, ok := eng.(engines.Watcher); ok {
			for _, watch := range w.Watches(c) {
				r.Watches = append(r.Watches, cacheruntime.Watch{Object: watch.Object, Map: requestsOf(watch.Map)})
			}
			r.Serves = w.Serves
		}
		if err := r.SetupWithManager(mgr, name); err != nil {
			return fmt.Errorf("setting up the %s reconciler: %w", name, err)
		}
	}
	return nil
}

// requestsOf turns an engine's watch map into one of reconcile requests.
func requestsOf(m func(context.Context, client.Object) []client.ObjectKey) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var out []reconcile.Request
		for _, key := range m(ctx, o) {
			out = append(out, reconcile.Request{NamespacedName: key})
		}
		return out
	}
}
