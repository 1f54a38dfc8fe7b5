package controller

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/dataset"
	"github.com/sluice-data/sluice/engines"
)

// setupDatasets registers the Dataset lifecycle reconciler, which deletes a
// deleted Dataset's runtime: of the kinds of the engines the controller
// runs.
func setupDatasets(mgr manager.Manager, registry []engines.Engine) error {
	kinds := map[string]func() datav1alpha1.RuntimeObject{}
	for _, eng := range registry {
		kinds[eng.Type()] = eng.NewObject
	}
	r := &dataset.Reconciler{Client: mgr.GetClient(), Live: mgr.GetAPIReader(), RuntimeKinds: kinds, Events: mgr.GetEventRecorder("sluice-controller")}
	if err := r.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the dataset reconciler: %w", err)
	}
	return nil
}
