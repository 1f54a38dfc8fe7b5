package helm

import (
	"sync"
	"sync/atomic"
	"time"

	"helm.sh/helm/v3/pkg/kube"
)

// reachableFor is how long a successful reachability probe is trusted.
const reachableFor = 30 * time.Second

// probedKube is Helm's Kubernetes client with its reachability probe
// remembered for a while. Every install, upgrade, rollback and uninstall
// starts with the probe, a GET /version; a controller that installs
// hundreds of releases and talks to the API server all the time learns
// nothing from repeating it for each. The embedded *kube.Client keeps the
// optional interfaces Helm's actions look for (three-way merge, deletion
// propagation, logs, waits).
//
// Probes are serialised: Helm's client creates its clientset lazily on
// the first probe, writing an unguarded field, and the controller's
// reconcilers share one client (go test -race showed two first probes
// racing). Every Helm action probes before anything else, so the field is
// written under the lock before any other method reads it.
type probedKube struct {
	*kube.Client
	ttl time.Duration
	// ok is when the last probe succeeded, in Unix nanoseconds.
	ok    atomic.Int64
	probe sync.Mutex
}

// IsReachable implements kube.Interface.
func (k *probedKube) IsReachable() error {
	if k.fresh() {
		return nil
	}
	k.probe.Lock()
	defer k.probe.Unlock()
	if k.fresh() {
		return nil
	}
	if err := k.Client.IsReachable(); err != nil {
		return err
	}
	k.ok.Store(time.Now().UnixNano())
	return nil
}

// fresh says whether the last successful probe is recent enough to trust.
func (k *probedKube) fresh() bool {
	last := k.ok.Load()
	return last != 0 && time.Since(time.Unix(0, last)) < k.ttl
}
