package cacheruntime

import (
	"context"
	"io"
	"maps"
	"net"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// observeCache scrapes the cache-reporting pods eng (this reconcile's
// engine) names, those of the runtime's release only (fromRelease), a few
// at a time and within scrapeBudget, and returns the summed figures as
// cacheStates (sized by workersReady, and the cached percentage of
// ufsTotal, the Dataset's as this reconcile writes it), which the status
// functions report in the runtime's and the Dataset's status. Pods that
// are not running or do not answer are skipped (and logged); with none
// answering only the capacity is reported (reportCapacity) and the other
// figures stay as the Dataset ds shows them.
func (r *Reconciler) observeCache(ctx context.Context, eng engines.Engine, ds *datav1alpha1.Dataset, rt datav1alpha1.RuntimeObject, workersReady int32, ufsTotal string) (datav1alpha1.CacheStateList, error) {
	src, ok := eng.CacheMetrics(rt)
	if !ok {
		return nil, nil
	}
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(rt.GetNamespace()), client.MatchingLabels(src.Selector)); err != nil {
		return nil, err
	}
	var (
		mu       sync.Mutex
		sum, top engines.CacheCounters
		n        int
	)
	ctx, cancel := context.WithTimeout(ctx, scrapeBudget)
	defer cancel()
	g := &errgroup.Group{}
	g.SetLimit(scrapeConcurrency)
	for i := range pods.Items {
		p := &pods.Items[i]
		port := metricsPort(p, src.PortName)
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" || port == 0 || !r.fromRelease(ctx, p, rt.GetName()) {
			continue
		}
		g.Go(func() error {
			c, err := r.scrape(ctx, src, net.JoinHostPort(p.Status.PodIP, strconv.Itoa(int(port))))
			if err != nil {
				ctrl.LoggerFrom(ctx).Info("cache metrics unavailable", "pod", p.Name, "error", err.Error())
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			sum, top, n = sum.Add(c), top.Max(c), n+1
			return nil
		})
	}
	_ = g.Wait()
	capacity := cacheCapacity(rt, workersReady)
	if n == 0 {
		return reportCapacity(ds, capacity), nil
	}
	if src.ClusterWide {
		sum = top
	} else {
		// Each client caches on its own node: report the mean per node.
		sum.CachedBytes /= float64(n)
	}
	ufs, _ := engines.ParseSize(ufsTotal)
	return engines.CacheStates(sum, capacity, ufs.Value()), nil
}

// scrape reads one pod's cache metrics page (readPage).
func (r *Reconciler) scrape(ctx context.Context, src engines.MetricsSource, hostPort string) (engines.CacheCounters, error) {
	var c engines.CacheCounters
	err := r.readPage(ctx, src.Paths, hostPort, func(page io.Reader) (err error) {
		c, err = src.Parse(page)
		return err
	})
	return c, err
}

// reportCapacity is observeCache when no pod answered: the cache's
// capacity is known from the tieredstore and the ready workers without
// any, so it is reported (as Fluid shows it once the Dataset is bound);
// the figures only pods know stay as the Dataset shows them, absent until
// one answers. nil when there is no capacity to tell.
func reportCapacity(ds *datav1alpha1.Dataset, capacity int64) datav1alpha1.CacheStateList {
	if capacity <= 0 {
		return nil
	}
	states := maps.Clone(ds.Status.CacheStates)
	if states == nil {
		states = datav1alpha1.CacheStateList{}
	}
	states[datav1alpha1.CacheCapacity] = engines.FormatBytes(capacity)
	return states
}

// metricsPort is the pod's container port of the given name, or 0.
func metricsPort(p *corev1.Pod, name string) int32 {
	for _, c := range p.Spec.Containers {
		for _, port := range c.Ports {
			if port.Name == name {
				return port.ContainerPort
			}
		}
	}
	return 0
}

// cacheCapacity is the runtime's cache size: the first tier's quota on each
// ready worker.
func cacheCapacity(rt datav1alpha1.RuntimeObject, workersReady int32) int64 {
	levels := rt.GetTieredStore().Levels
	if len(levels) == 0 {
		return 0
	}
	return levelQuota(levels[0]) * int64(workersReady)
}

// levelQuota is a tier's size on one worker; quotaList overrides quota.
func levelQuota(l datav1alpha1.Level) int64 {
	if l.QuotaList != "" {
		var sum int64
		for _, q := range strings.Split(l.QuotaList, ",") {
			size, _ := engines.ParseSize(q)
			sum += size.Value()
		}
		return sum
	}
	if l.Quota != nil {
		return l.Quota.Value()
	}
	return 0
}
