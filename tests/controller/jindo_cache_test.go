package controller_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestJindoCacheStatesFromTheMastersRPCPort shows the Jindo cache states
// are read from the master's RPC port (the container port "rpc", not
// "metrics"), at whichever documented path serves the page: here the oldest
// one, after the newer paths answer 404.
func TestJindoCacheStatesFromTheMastersRPCPort(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	page, master := samplePage(t, "jindo", jindo.ParseMetrics)
	rt := createJindo(ctx, t, ns)
	src, _ := jindo.Engine{}.CacheMetrics(rt)
	port := servePage(t, src.Paths[len(src.Paths)-1], page)
	namedPortPod(t, ns, "logs-master-0", src.Selector, src.PortName, port)
	readyMastersAndWorkers(t, ns, "logs")
	want := engines.CacheStates(master, 2*20<<30, 0)
	got := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset reports the master's cache states", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "logs"}, got) == nil && sameStates(got.Status.CacheStates, want)
	})
	// Local and remote reads in Fluid's keys: on the recorded page every
	// byte served from cache came from another node (40.2% of all bytes
	// read); it counts no read operations.
	for k, v := range map[datav1alpha1.CacheStateName]string{
		datav1alpha1.CacheThroughputRatio: "40.2%", datav1alpha1.LocalThroughputRatio: "0.0%", datav1alpha1.RemoteThroughputRatio: "40.2%",
		datav1alpha1.CacheHitRatio: "0.0%", datav1alpha1.LocalHitRatio: "0.0%", datav1alpha1.RemoteHitRatio: "0.0%",
	} {
		if got.Status.CacheStates[k] != v {
			t.Errorf("status.cacheStates.%s = %q, want %q", k, got.Status.CacheStates[k], v)
		}
	}
}
