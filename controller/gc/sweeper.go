package gc

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// DefaultLimit bounds each pass's removals of each kind (FUSE records,
// Datasets' volumes, nodes relabelled); the next pass goes on.
const DefaultLimit = 100

// recordPage is how many FUSE records one pass reads (their metadata
// only); the next pass reads on from where it stopped.
const recordPage = 500

// Sweeper removes, at start and then every Period, what the controller
// created for runtimes that no longer exist: FUSE records (sweepRecords),
// Datasets' PVCs and PVs (sweepVolumes) and node cache labels
// (sweepNodeLabels). It runs on the elected leader only.
type Sweeper struct {
	// Client is the manager's (cached) client; the sweep reads from its
	// cache and writes through it.
	Client client.Client
	// Live reads from the API server: an owner is confirmed gone there
	// before anything of it is removed, and FUSE records are listed there.
	Live client.Reader
	// RuntimeKinds are the controller's engines' runtime types and kinds
	// (the types in node label keys). Runtimes of every kind the API
	// defines own objects too, whether or not an engine serves them here.
	RuntimeKinds map[string]func() datav1alpha1.RuntimeObject
	// FuseRecords is the FUSE records' namespace; empty sweeps none.
	FuseRecords string
	// Period is the time between passes.
	Period time.Duration
	// Limit bounds each pass's removals of each kind; 0 is DefaultLimit.
	Limit int

	// recordsContinue is where the next pass reads FUSE records on.
	recordsContinue string
}

// Start runs a pass at once and then every Period until ctx ends
// (manager.Runnable).
func (s *Sweeper) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("gc")
	ctx = ctrl.LoggerInto(ctx, log)
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		if err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			log.Error(err, "sweeping orphans")
		}
	}, s.Period)
	return nil
}

// NeedLeaderElection makes the sweep run on the leader only
// (manager.LeaderElectionRunnable).
func (s *Sweeper) NeedLeaderElection() bool { return true }

// Sweep is one pass. Nodes and PVs are read before the owners: a label or
// volume a runtime's reconcile wrote is then seen only with its runtime
// (the cache held the runtime before the reconcile wrote it).
func (s *Sweeper) Sweep(ctx context.Context) error {
	nodes, err := s.cachedNodes(ctx)
	if err != nil {
		return err
	}
	pvs, err := s.cachedVolumes(ctx)
	if err != nil {
		return err
	}
	o, err := s.gatherOwners(ctx)
	if err != nil {
		return err
	}
	return errors.Join(s.sweepRecords(ctx, o), s.sweepVolumes(ctx, o, pvs), s.sweepNodeLabels(ctx, o, nodes))
}

// young says whether obj was created less than a Period ago: it is left
// for a later pass, since the cache may not show its owner yet (a runtime
// created right after the volume it takes over, e.g.).
func (s *Sweeper) young(obj metav1.Object) bool {
	return time.Since(obj.GetCreationTimestamp().Time) < s.Period
}

func (s *Sweeper) limit() int {
	if s.Limit > 0 {
		return s.Limit
	}
	return DefaultLimit
}
