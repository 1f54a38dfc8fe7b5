package controller

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/reference"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/thin"
)

// setupReferences registers the reconciler of reference datasets'
// ThinRuntimes (those without spec.profileName) when the controller runs
// the Thin engine; the referenced Datasets' runtimes are of the kinds of
// the engines it runs.
func setupReferences(mgr manager.Manager, o *Options, registry []engines.Engine) error {
	kinds, withThin := map[string]func() datav1alpha1.RuntimeObject{}, false
	for _, eng := range registry {
		kinds[eng.Type()] = eng.NewObject
		_, isThin := eng.(thin.Engine)
		withThin = withThin || isThin
	}
	if !withThin {
		return nil
	}
	r := &reference.Reconciler{Client: mgr.GetClient(), Live: mgr.GetAPIReader(), RuntimeKinds: kinds, Refresh: o.CacheRefresh,
		Events: mgr.GetEventRecorder("sluice-controller"), FuseRecords: o.FuseRecords}
	if err := r.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the reference dataset reconciler: %w", err)
	}
	return nil
}
