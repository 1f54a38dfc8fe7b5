package controller

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/gc"
	"github.com/sluice-data/sluice/engines"
)

// setupGC adds the orphan sweep (controller/gc), run by the leader every
// o.GCPeriod, unless that is 0.
func setupGC(mgr manager.Manager, o *Options, registry []engines.Engine) error {
	if o.GCPeriod <= 0 {
		return nil
	}
	kinds := map[string]func() datav1alpha1.RuntimeObject{}
	for _, eng := range registry {
		kinds[eng.Type()] = eng.NewObject
	}
	s := &gc.Sweeper{Client: mgr.GetClient(), Live: mgr.GetAPIReader(), RuntimeKinds: kinds, FuseRecords: o.FuseRecords, Period: o.GCPeriod}
	if err := mgr.Add(s); err != nil {
		return fmt.Errorf("adding the orphan sweep: %w", err)
	}
	return nil
}
