package e2e_test

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/tests/support/inprocess"
)

// The controller's leader election works with the Role config/rbac grants in
// its namespace (create the lease, get and update it by name) and no
// cluster-wide lease rights: a manager with the controller's lease settings,
// acting as its ServiceAccount, is elected and holds the lease. It has no
// reconcilers, so it does not compete with the controller the other tests
// run.
func TestLeaderElectionWithTheNamespacedRole(t *testing.T) {
	cfg := rest.CopyConfig(cluster.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: inprocess.ControllerUser}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		LeaderElection:                true,
		LeaderElectionID:              controller.LeaderElectionID,
		LeaderElectionNamespace:       "sluice-system",
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	select {
	case <-mgr.Elected():
	case err := <-done:
		t.Fatalf("manager stopped before it was elected: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("not elected within 30s: the controller's ServiceAccount cannot take its lease")
	}
	lease := &coordinationv1.Lease{}
	if err := cluster.Client.Get(context.Background(), client.ObjectKey{Namespace: "sluice-system", Name: controller.LeaderElectionID}, lease); err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("lease %s has no holder after the election", controller.LeaderElectionID)
	}
}
