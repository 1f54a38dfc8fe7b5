package controller

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/sluice-data/sluice/controller/sidecarexit"
)

// setupSidecarExit registers the reconciler that tells the container-mode
// FUSE sidecars of ended Pods to stop.
func setupSidecarExit(mgr manager.Manager) error {
	r := &sidecarexit.Reconciler{Client: mgr.GetClient()}
	if err := r.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the sidecar exit reconciler: %w", err)
	}
	return nil
}
