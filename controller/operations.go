package controller

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/process"
)

// renderers render the kinds that do not depend on the Dataset's engine
// (DataProcess runs the user's pod with the Dataset's PVC, whatever caches
// it); the others are rendered by the engine (engines.Operations).
var renderers = map[datav1alpha1.OperationKind]operation.Renderer{
	datav1alpha1.DataProcessKind: process.Operations{}.Operation,
}

// setupOperations registers one operation reconciler per kind, running
// operations through the registry's engines and recording their ends in
// ends.
func setupOperations(mgr manager.Manager, o *Options, live client.Client, conflicts claim.Table, helmClients *helmClients, registry []engines.Engine, guard operation.Guard, ends operation.EndRecorder) error {
	for _, kind := range []datav1alpha1.OperationKind{datav1alpha1.DataLoadKind, datav1alpha1.DataMigrateKind, datav1alpha1.DataBackupKind, datav1alpha1.DataProcessKind} {
		r := &operation.Reconciler{
			Kind: kind, Client: mgr.GetClient(), Live: live, Engines: registry, Render: renderers[kind],
			Helm: helmClients.forNamespace, Conflicts: conflicts, Grace: o.ClaimGracePeriod,
			Concurrency: o.Concurrency, Events: mgr.GetEventRecorder("sluice-controller"), Guard: guard, Ends: ends,
		}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the %s reconciler: %w", kind, err)
		}
	}
	return nil
}
