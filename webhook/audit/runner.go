package audit

import (
	"context"
	"time"

	"github.com/go-logr/logr"

	"github.com/sluice-data/sluice/webhook/policy"
)

// Runner is the in-cluster audit: every Interval, and whenever the active
// policy bundle changes, it audits every namespace in turn and replaces
// its report. Memory holds one namespace's Pods (a page at a time) and
// findings at once; API requests are the Pod pages and the changed
// reports, spaced by the Source's and Writer's limiters.
type Runner struct {
	Auditor *Auditor
	Source  *Source
	Writer  *Writer
	// Engine's active bundle is what the audit evaluates; a new one
	// (Generation) starts a new audit.
	Engine *policy.Engine
	// Interval is the time between two audits.
	Interval time.Duration
	// BundlePoll is how often the bundle's generation is checked.
	BundlePoll time.Duration
	Log        logr.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Stats is what one audit did.
type Stats struct {
	Namespaces, Findings, Written int
}

// Run audits until ctx ends: once a bundle is active, then on every tick
// of Interval or change of bundle. A failed audit is logged and retried at
// the next tick.
func (r *Runner) Run(ctx context.Context) {
	tick := time.NewTicker(r.Interval)
	defer tick.Stop()
	poll := time.NewTicker(r.BundlePoll)
	defer poll.Stop()
	var audited uint64 // the generation last audited; 0: none yet
	for {
		if c := r.Engine.Active(); c != nil && c.Generation() != audited {
			audited = c.Generation()
			r.audit(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if audited != 0 {
				r.audit(ctx)
			}
		case <-poll.C:
		}
	}
}

func (r *Runner) audit(ctx context.Context) {
	start := time.Now()
	s, err := r.Cycle(ctx)
	if err != nil {
		r.Log.Error(err, "policy audit failed", "namespaces", s.Namespaces)
		return
	}
	r.Log.Info("policy audit done", "namespaces", s.Namespaces, "findings", s.Findings, "reportsWritten", s.Written, "duration", time.Since(start))
}

// Cycle audits every namespace once and replaces the reports that
// changed.
func (r *Runner) Cycle(ctx context.Context) (Stats, error) {
	var s Stats
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	if r.Writer.stored == nil {
		if err := r.Writer.Seed(ctx); err != nil {
			return s, err
		}
	}
	namespaces, err := r.Source.ListNamespaces(ctx)
	if err != nil {
		return s, err
	}
	seen := map[string]bool{}
	for _, ns := range append([]string{""}, namespaces...) {
		findings, err := r.Source.Namespace(ctx, r.Auditor, ns)
		if err != nil {
			return s, err
		}
		written, err := r.Writer.Put(ctx, Report(ns, findings, now()))
		if err != nil {
			return s, err
		}
		seen[ns] = true
		s.Namespaces++
		s.Findings += len(findings)
		if written {
			s.Written++
		}
	}
	r.Writer.Forget(seen)
	return s, nil
}
