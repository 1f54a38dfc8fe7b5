package audit

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// LeaseName is the Lease that elects the one webhook replica that audits.
const LeaseName = "sluice-webhook-audit"

// Elected runs the Runner in one webhook replica at a time: every replica
// serves admissions, but only the holder of the Lease LeaseName in
// namespace audits, so reports are written once. It returns when ctx ends.
type Elected struct {
	Runner    *Runner
	Config    *rest.Config
	Namespace string
	Identity  string
}

// Start campaigns for the Lease until ctx ends, auditing while it holds it.
func (e *Elected) Start(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		return err
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, e.Namespace, LeaseName, cs.CoreV1(), cs.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: e.Identity})
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock: lock, LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
			ReleaseOnCancel: true, Name: LeaseName,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					e.Runner.Writer.stored = nil // another replica may have written since
					e.Runner.Run(ctx)
				},
				// Required; the loop campaigns again once RunOrDie returns.
				OnStoppedLeading: func() {},
			},
		})
	}
	return nil
}

// NeedLeaderElection is false: the manager runs it in every replica, and
// it elects its own leader.
func (e *Elected) NeedLeaderElection() bool { return false }
