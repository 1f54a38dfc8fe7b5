package controller

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/runtime"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/engines/thin"
)

// setupRuntimes registers one runtime reconciler per engine.
func setupRuntimes(mgr manager.Manager, o *Options, helmClients *helmClients) error {
	c := mgr.GetClient()
	base := func(obj func() client.Object) *runtime.Reconciler {
		return &runtime.Reconciler{
			Client: c, Live: mgr.GetAPIReader(), NewObject: obj, Helm: helmClients.forNamespace,
			CacheRefresh: o.CacheRefresh, Concurrency: o.Concurrency, Events: mgr.GetEventRecorder("sluice-controller"),
		}
	}
	jfs := base(func() client.Object { return &datav1alpha1.JuiceFSRuntime{} })
	jfs.Engine, jfs.MountType, jfs.FusePath = juicefs.Engine{}, runtime.StaticMountType("fuse.juicefs"), juicefs.FusePath

	alx := base(func() client.Object { return &datav1alpha1.AlluxioRuntime{} })
	alx.Engine, alx.MountType, alx.FusePath = alluxio.Engine{}, runtime.StaticMountType(alluxio.MountType), alluxio.FusePath

	jdo := base(func() client.Object { return &datav1alpha1.JindoRuntime{} })
	jdo.Engine, jdo.MountType, jdo.FusePath = jindo.Engine{}, runtime.StaticMountType(jindo.MountType), jindo.FusePath

	thn := base(func() client.Object { return &datav1alpha1.ThinRuntime{} })
	// Its mount type is its profile's fileSystemType: the engine resolves
	// it with the profile (engines.FuseVolume), so MountType stays nil.
	thn.Engine, thn.FusePath = thin.Engine{}, thin.FusePath
	// A ThinRuntime waiting for its profile starts when the profile appears
	// or changes.
	thn.Watches = []runtime.Watch{{Object: &datav1alpha1.ThinRuntimeProfile{}, Map: thinRuntimesOf(c)}}

	for name, r := range map[string]*runtime.Reconciler{"juicefsruntime": jfs, "alluxioruntime": alx, "jindoruntime": jdo, "thinruntime": thn} {
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
