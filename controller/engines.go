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

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/controller/reference"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/thin"
	"github.com/sluice-data/sluice/engines/ufsmeta"
)

// setupRuntimes registers one runtime reconciler per engine, named after
// the runtime kind it serves (e.g. juicefsruntime).
func setupRuntimes(mgr manager.Manager, o *Options, helmClients *helmClients, registry []engines.Engine, failures cacheruntime.FailureCounter, guard cacheruntime.Guard) error {
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
		}
		if _, ok := eng.(thin.Engine); ok {
			// A ThinRuntime waiting for its profile starts when the profile
			// appears or changes; one without a profile serves a reference
			// dataset (controller/reference).
			r.Watches = []cacheruntime.Watch{{Object: &datav1alpha1.ThinRuntimeProfile{}, Map: thinRuntimesOf(c)}}
			r.Serves = func(rt datav1alpha1.RuntimeObject) bool {
				t, ok := rt.(*datav1alpha1.ThinRuntime)
				return !ok || !reference.Serves(t)
			}
		}
		if err := r.SetupWithManager(mgr, name); err != nil {
			return fmt.Errorf("setting up the %s reconciler: %w", name, err)
		}
	}
	return nil
}

// thinRuntimesOf maps a ThinRuntimeProfile to the ThinRuntimes naming it.
func thinRuntimesOf(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		list := &datav1alpha1.ThinRuntimeList{}
		if err := c.List(ctx, list); err != nil {
			return nil
		}
		var out []reconcile.Request
		for _, rt := range list.Items {
			if rt.Spec.ProfileName == o.GetName() {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&rt)})
			}
		}
		return out
	}
}
