package cacheruntime

import (
	"context"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/sluice-data/sluice/engines"
)

// minUsageRefresh is the shortest interval between two reads of a
// Dataset's usage pages (when the cache refresh is shorter, or 0).
const minUsageRefresh = 5 * time.Second

// usageReads are the reads of Datasets' usage pages (engines.UsagePages).
// A read runs beside the reconcile, at most one per Dataset at a time and
// one per refresh interval, so that a page that answers slowly, or a pod
// address nothing answers at, never holds a reconcile; the reconcile after
// it (which it wakes) observes its result and writes it.
type usageReads struct {
	mu sync.Mutex
	m  map[types.NamespacedName]*usageRead
}

type usageRead struct {
	started time.Time
	running bool
	// result is the usage the last read found, until a reconcile takes it.
	result *engines.UFSUsage
}

// take returns (and forgets) the result of key's last read, if it found
// one.
func (u *usageReads) take(key types.NamespacedName) (engines.UFSUsage, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	r := u.m[key]
	if r == nil || r.result == nil {
		return engines.UFSUsage{}, false
	}
	res := *r.result
	r.result = nil
	return res, true
}

// begin says whether a read of key starts now: none runs, and none started
// within every.
func (u *usageReads) begin(key types.NamespacedName, now time.Time, every time.Duration) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		u.m = map[types.NamespacedName]*usageRead{}
	}
	r := u.m[key]
	if r == nil {
		r = &usageRead{}
		u.m[key] = r
	}
	if r.running || (!r.started.IsZero() && now.Sub(r.started) < every) {
		return false
	}
	r.started, r.running = now, true
	return true
}

// done records the end of key's read and what it found.
func (u *usageReads) done(key types.NamespacedName, res *engines.UFSUsage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if r := u.m[key]; r != nil {
		r.running = false
		if res != nil {
			r.result = res
		}
	}
}

// forget drops key's reads.
func (u *usageReads) forget(key types.NamespacedName) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.m, key)
}

// syncUsage observes the usage an earlier read of the Dataset's pages
// found (the reconcile writes it), and starts the next read when one is
// due (usageReads).
func (r *Reconciler) syncUsage(ctx context.Context, s *scope, src *engines.UsagePages) error {
	key := client.ObjectKeyFromObject(s.ds)
	if u, ok := r.usage.take(key); ok {
		s.obs.usage = &u
	}
	if !r.usage.begin(key, r.clock(), max(r.CacheRefresh, minUsageRefresh)) {
		return nil
	}
	targets, err := r.usageTargets(ctx, src, s.rt)
	if err != nil {
		r.usage.done(key, nil)
		return err
	}
	wake := s.rt.DeepCopyObject().(client.Object)
	go func() {
		res := r.readUsage(ctrl.LoggerInto(context.Background(), ctrl.LoggerFrom(ctx)), src, targets)
		r.usage.done(key, res)
		if res != nil {
			select {
			case r.wake <- event.GenericEvent{Object: wake}:
			default: // the periodic refresh will write it
			}
		}
	}()
	return nil
}

// usageTargets are the addresses of the pages src names: of the release's
// running pods (fromRelease) that serve the port.
func (r *Reconciler) usageTargets(ctx context.Context, src *engines.UsagePages, rt client.Object) ([]string, error) {
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(rt.GetNamespace()), client.MatchingLabels(src.Selector)); err != nil {
		return nil, err
	}
	var out []string
	for i := range pods.Items {
		p := &pods.Items[i]
		port := metricsPort(p, src.PortName)
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" || port == 0 || !r.fromRelease(ctx, p, rt.GetName()) {
			continue
		}
		out = append(out, net.JoinHostPort(p.Status.PodIP, strconv.Itoa(int(port))))
	}
	return out, nil
}

// readUsage reads the usage from the pages at targets, asked in turn
// within scrapeBudget until one reports it (each reports the whole
// Dataset). nil when none does (none answers, or the pages do not carry
// the figures); that is logged, not an error.
func (r *Reconciler) readUsage(ctx context.Context, src *engines.UsagePages, targets []string) *engines.UFSUsage {
	log := ctrl.LoggerFrom(ctx)
	ctx, cancel := context.WithTimeout(ctx, scrapeBudget)
	defer cancel()
	for _, hostPort := range targets {
		var (
			u        engines.UFSUsage
			reported bool
		)
		err := r.readPage(ctx, src.Paths, hostPort, func(page io.Reader) (err error) {
			u, reported, err = src.Parse(page)
			return err
		})
		switch {
		case err != nil:
			log.Info("dataset usage unavailable", "address", hostPort, "error", err.Error())
		case reported:
			return &u
		default:
			// Every pod serves the same page: the others do not report it either.
			log.V(1).Info("the engine's metrics page reports no dataset usage", "address", hostPort)
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	return nil
}
