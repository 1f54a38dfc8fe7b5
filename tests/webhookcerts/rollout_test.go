package webhookcerts_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// steady is how long TestRollingRestartUnderLoad's load runs before the
// rollout starts and after it ends.
const steady = 3 * time.Second

// TestRollingRestartUnderLoad restarts the two replicas behind a Service
// (readyBalancer: new connections to ready replicas only, as an
// EndpointSlice) one at a time while 50 clients create labelled Pods
// through the API server, and requires that no create fails and that every
// Pod stored was mutated. Every webhook has failurePolicy Fail, so an
// admission call that cannot connect, or whose connection is closed under
// it, fails its Pod's creation; timeoutSeconds is 10 so that a slow call on
// a loaded test machine is not mistaken for one.
//
// The rollout is the harsher order of a Deployment with maxUnavailable 1:
// SIGTERM a and start a', wait until a' is ready, SIGTERM b and start b',
// wait until b' is ready. Then b' is restarted in place (a container
// restart: SIGTERM, exit, the same addresses again). A replica told to stop
// keeps serving for its --shutdown-delay while its /readyz already fails,
// so that the Service stops sending it connections before it closes its
// listener, and asks its callers to close their connections after each
// response; then it drains the requests in flight.
func TestRollingRestartUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a rollout under load takes over a minute")
	}
	ns := env.Namespace(t)
	secret := createEmptySecret(t, ns, "sluice-webhook-cert")
	cfgs := newConfigurations(ns)
	o := replicaOptions{env: selfManaged(secret.Name, cfgs), args: []string{"--cert-extra-dns-names=localhost", "--shutdown-delay=5s"}}
	lb := startReadyBalancer(t)
	a, b := startReplica(t, "a", ns, o), startReplica(t, "b", ns, o)
	lb.add(a)
	lb.add(b)
	url := fmt.Sprintf("https://localhost:%d", port(lb.addr))
	co := configurationOptions{mutatingURL: url, validatingURL: url, failAll: true, timeoutSeconds: 10}
	cfgs.createMutating(t, co)
	cfgs.createValidating(t, co)
	waitReady(t, a, b)
	podNS := env.Namespace(t)
	seedDataset(t, podNS, "imagenet")
	// Every failed create counts: the load starts once each replica's
	// cache shows the Dataset's objects.
	waitMutates(t, labelledPod(podNS, "probe", "imagenet"), a, b)

	load := startPodLoad(t, podNS, "imagenet")
	time.Sleep(steady)
	var stopped []stop
	successor := func(old *replica, name string) *replica {
		lb.delete(old) // a Deployment's rollout deletes the old Pod
		stopped = append(stopped, stop{r: old, at: old.terminate(t)})
		r := startReplica(t, name, ns, o)
		lb.add(r)
		waitReady(t, r)
		waitSeen(t, lb, r)
		return r
	}
	a2 := successor(a, "a2")
	b2 := successor(b, "b2")
	for i := range stopped {
		stopped[i].wait(t)
		lb.remove(stopped[i].r)
	}
	// A plain restart of b2 in place: the balancer keeps its backend.
	restart := stop{r: b2, at: b2.terminate(t)}
	restart.wait(t)
	stopped = append(stopped, restart)
	o2 := o
	o2.addr, o2.probe = b2.addr, b2.probe
	b3 := startReplica(t, "b2-restarted", ns, o2)
	waitReady(t, b3)
	waitSeen(t, lb, b3)
	time.Sleep(steady)
	admitted, failures, elapsed := load.stop()

	var drains []string
	for _, s := range stopped {
		drains = append(drains, fmt.Sprintf("%s %v", s.r.name, s.served.Round(100*time.Millisecond)))
	}
	t.Logf("%d Pods admitted in %v (%.0f/s) by %d clients through the rollout; %d failed; connections per backend %v, %d with none ready; SIGTERM to exit: %s",
		admitted, elapsed.Round(time.Second), float64(admitted)/elapsed.Seconds(), loadClients, failures.count(), lb.connections(), lb.refusals(), strings.Join(drains, ", "))
	if n := failures.count(); n > 0 {
		t.Errorf("%d admissions failed, the first: %v; readiness changes seen by the balancer: %s", n, failures.first(), strings.Join(lb.readinessChanges(), "; "))
	}
	if admitted < 200 {
		t.Errorf("only %d Pods admitted: not much of a load", admitted)
	}
	checkStoredMutated(t, podNS, "imagenet", admitted)
	waitReady(t, a2, b3)
}

// waitSeen waits until the balancer lists r as ready: a Deployment goes on
// with its rollout once the new Pod is Ready, which is also when its
// endpoint becomes ready; the test's balancer polls on its own, and a
// rollout that went on before it saw the new replica left, for a moment,
// no replica it would send connections to.
func waitSeen(t *testing.T, lb *readyBalancer, r *replica) {
	t.Helper()
	waitFor(t, testenv.Stretch(60*time.Second), "the balancer to see replica "+r.name+" ready", func() error { return lb.sees(r) })
}

// stop is a replica sent SIGTERM at a time.
type stop struct {
	r      *replica
	at     time.Time
	served time.Duration // from SIGTERM to exit, once wait returned
}

func (s *stop) wait(t *testing.T) {
	t.Helper()
	if err := s.r.waitExited(testenv.Stretch(60 * time.Second)); err != nil {
		t.Fatal(err)
	}
	s.served = s.r.exitedAt.Sub(s.at)
}

// waitReady waits until each replica's /readyz succeeds.
func waitReady(t *testing.T, rs ...*replica) {
	t.Helper()
	for _, r := range rs {
		waitFor(t, testenv.Stretch(60*time.Second), "replica "+r.name+" ready", func() error {
			if err := r.exited(); err != nil {
				return err
			}
			return r.readyz()
		})
	}
}

// podLoad is loadClients clients creating labelled Pods that use one
// Dataset, as fast as their rate limits let them, until stopped.
type podLoad struct {
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	start    time.Time
	admitted atomic.Int64
	failures failureLog
}

func startPodLoad(t *testing.T, ns, dataset string) *podLoad {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &podLoad{cancel: cancel, start: time.Now()}
	t.Cleanup(cancel)
	for i := range loadClients {
		c := loadClient(t)
		l.wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				// Each create has its own deadline: the end of the load
				// must not cut one short and count it as failed.
				reqCtx, done := context.WithTimeout(context.Background(), 30*time.Second)
				err := createMutated(reqCtx, c, labelledPod(ns, fmt.Sprintf("p-%d-%d", i, n), dataset), dataset)
				done()
				if err != nil {
					l.failures.add(time.Since(l.start), err)
					continue
				}
				l.admitted.Add(1)
			}
		})
	}
	return l
}

// stop ends the load and waits for the creates in flight.
func (l *podLoad) stop() (admitted int64, failures *failureLog, elapsed time.Duration) {
	l.cancel()
	l.wg.Wait()
	return l.admitted.Load(), &l.failures, time.Since(l.start)
}

// checkStoredMutated lists the Pods stored in ns and requires admitted of
// them, each mutated as the webhook mutates a serverful Pod using dataset
// (tests/webhook's TestAPIServerStoresMutatedPod): the datasets-in-use
// annotation, HostToContainer propagation on the dataset mount, and a
// preference for the nodes caching the dataset.
func checkStoredMutated(t *testing.T, ns, dataset string, admitted int64) {
	t.Helper()
	pods := &corev1.PodList{}
	if err := env.Client.List(context.Background(), pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if int64(len(pods.Items)) != admitted {
		t.Errorf("%d Pods stored, %d admitted", len(pods.Items), admitted)
	}
	var unmutated []string
	for i := range pods.Items {
		if err := mutatedFor(&pods.Items[i], dataset); err != nil {
			unmutated = append(unmutated, err.Error())
		}
	}
	sort.Strings(unmutated)
	if len(unmutated) > 0 {
		t.Errorf("%d stored Pods are not mutated, e.g. %s", len(unmutated), unmutated[0])
	}
}

// mutatedFor says how pod, stored, falls short of a serverful Pod mutated
// for dataset.
func mutatedFor(pod *corev1.Pod, dataset string) error {
	if got := pod.Annotations[datav1alpha1.AnnotationDatasetsInUse]; got != dataset {
		return fmt.Errorf("%s: datasets in use %q", pod.Name, got)
	}
	if m := pod.Spec.Containers[0].VolumeMounts[0].MountPropagation; m == nil || *m != corev1.MountPropagationHostToContainer {
		return fmt.Errorf("%s: mount propagation %v", pod.Name, m)
	}
	cache := "fluid.io/s-" + pod.Namespace + "-" + dataset
	if a := pod.Spec.Affinity; a == nil || a.NodeAffinity == nil || !prefers(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, cache) {
		return fmt.Errorf("%s: no preference for the nodes labelled %s: %+v", pod.Name, cache, pod.Spec.Affinity)
	}
	return nil
}

func prefers(terms []corev1.PreferredSchedulingTerm, key string) bool {
	for _, term := range terms {
		for _, e := range term.Preference.MatchExpressions {
			if e.Key == key {
				return true
			}
		}
	}
	return false
}
