package controller

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/reference"
	"github.com/sluice-data/sluice/engines"
)

// setupReferences registers the reconciler of reference datasets'
// ThinRuntimes (those without spec.profileName) when an engine the
// controller runs serves ThinRuntimes but leaves those to another
// reconciler (engines.Watcher; the Thin engine); the referenced Datasets'
// runtimes are of the kinds of the engines it runs.
func setupReferences(mgr manager.Manager, o *Options, registry []engines.Engine) error {
	kinds, leftToReferences := map[string]func() datav1alpha1.RuntimeObject{}, false
	referenceRT := &datav1alpha1.ThinRuntime{} // no spec.profileName
	for _, eng := range registry {
		kinds[eng.Type()] = eng.NewObject
		w, ok := eng.(engines.Watcher)
		_, thinKind := eng.NewObject().(*datav1alpha1.ThinRuntime)
		leftToReferences = leftToReferences || (ok && thinKind && !w.Serves(referenceRT))
	}
	if !leftToReferences {
		return nil
	}
	r := &reference.Reconciler{Client: mgr.GetClient(), Live: mgr.GetAPIReader(), RuntimeKinds: kinds, Refresh: o.CacheRefresh,
		Events: mgr.GetEventRecorder("sluice-controller"), FuseRecords: o.FuseRecords}
	if err := r.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the reference dataset reconciler: %w", err)
	}
	return nil
}
