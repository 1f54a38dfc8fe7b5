package webhookcerts_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/webhook/certs"
)

// Load and rotation of TestRotationUnderLoad.
const (
	loadClients  = 50
	loadDuration = 60 * time.Second
	// clientQPS per client: at most 50 Pods a second in all. A 2-core
	// machine running the test suite admits 70-95 a second at most (its
	// API server and three webhook replicas share the cores); 50 keeps
	// every connection of the rotation busy at a fraction of the CPU.
	clientQPS = 1
	// lag is how late the lagging replica loads a certificate: less than
	// --ca-propagation (10 s).
	lag = 3 * time.Second
)

// TestRotationUnderLoad rotates the CA and the serving certificate of
// self-managed replicas behind one address (a TCP balancer standing in for
// the Service) while 50 clients create labelled Pods through the API server
// for 60 seconds, and requires that every Pod is admitted and mutated.
// Every webhook has failurePolicy Fail, so a call that fails, TLS included,
// fails the Pod's creation; timeoutSeconds is 10 so that a slow call on a
// loaded test machine is not mistaken for one.
//
// Two replicas rotate the certificates and load each one within moments
// (they write it into their certificate directory themselves). A third,
// which half of the connections reach, loads each certificate 3 s after it
// is written, as a replica whose watch
// lags would (or one reading a Secret volume, which the kubelet updates
// about once a minute): it runs in files mode and the test copies the
// Secret into its directory late. The rotation must tolerate any replica
// lagging by less than --ca-propagation. It is the replica that shows why
// the CA is rolled over in steps: with cert-controller alone, which writes
// a new CA, its certificate and the caBundle at once, the API server
// trusts only the new CA while this replica still presents the old
// certificate, and admissions fail (measured with the rollover switched
// off: 1 and 4 failed admissions in two runs, "x509: certificate signed by
// unknown authority"; with it, none).
//
// The rotation is forced with short lifetimes, through the replicas' own
// flags (nothing writes the Secret but the replicas): CAs valid for 60 s
// and serving certificates for 30 s, renewed 20 s before they expire, with
// 10 s of propagation. cert-controller renews the serving certificate every
// ~10 s; the rollover replaces the CA every ~20 s (trust the next CA 40 s
// before the current one expires, sign with it 10 s later, drop the old one
// when it expires), so the 60 s of load see every step. The propagation
// leaves the API server 10 s to load a new caBundle and the lagging replica
// 7 s more than its lag: with 5 s, a CI run on a loaded 2-core machine
// failed 27 admissions in a moment ("x509: certificate signed by unknown
// authority"). The test checks that the Secret went through at least
// two CAs and three serving certificates while the load ran.
func TestRotationUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("60 s of admissions during certificate rotation")
	}
	ns := env.Namespace(t)
	secret := createEmptySecret(t, ns, "sluice-webhook-cert")
	cfgs := newConfigurations(ns)
	o := replicaOptions{env: selfManaged(secret.Name, cfgs), args: []string{"--cert-extra-dns-names=localhost",
		"--ca-validity=60s", "--cert-validity=30s", "--cert-renew-before=20s", "--cert-check-interval=1s", "--ca-propagation=10s"}}
	lagging := startReplica(t, "lagging", ns, replicaOptions{env: map[string]string{certs.EnvMode: string(certs.Files)}})
	projecting, stopProjecting := context.WithCancel(context.Background())
	t.Cleanup(stopProjecting)
	go projectLate(projecting, secret, lagging.certDir, lag)
	replicas := []*replica{startReplica(t, "a", ns, o), startReplica(t, "b", ns, o), lagging}
	// Half of the connections go to the lagging replica.
	url := fmt.Sprintf("https://localhost:%d", port(startBalancer(t, lagging.addr, replicas[0].addr, lagging.addr, replicas[1].addr)))
	co := configurationOptions{mutatingURL: url, validatingURL: url, failAll: true, timeoutSeconds: 10}
	cfgs.createMutating(t, co)
	cfgs.createValidating(t, co)
	for _, r := range replicas {
		waitFor(t, 60*time.Second, "replica "+r.name+" ready", func() error {
			if err := r.exited(); err != nil {
				return err
			}
			return r.readyz()
		})
	}
	podNS := env.Namespace(t)
	seedDataset(t, podNS, "imagenet")
	// Every failed create counts: the load starts once each replica's
	// cache shows the Dataset's objects.
	waitMutates(t, labelledPod(podNS, "probe", "imagenet"), replicas...)

	ctx, cancel := context.WithTimeout(context.Background(), loadDuration)
	defer cancel()
	seen := watchSecret(ctx, secret)
	start := time.Now()
	var admitted atomic.Int64
	var failures failureLog
	var wg sync.WaitGroup
	for i := range loadClients {
		c := loadClient(t)
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				// Each create has its own deadline: the end of the load
				// must not cut one short and count it as failed.
				reqCtx, done := context.WithTimeout(context.Background(), 30*time.Second)
				err := createMutated(reqCtx, c, labelledPod(podNS, fmt.Sprintf("p-%d-%d", i, n), "imagenet"), "imagenet")
				done()
				if err != nil {
					failures.add(time.Since(start), err)
					continue
				}
				admitted.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cas, leaves := seen()

	t.Logf("%d Pods admitted in %v (%.0f/s) by %d clients; %d failed; the Secret held %d CAs and %d serving certificates meanwhile",
		admitted.Load(), elapsed.Round(time.Second), float64(admitted.Load())/elapsed.Seconds(), loadClients, failures.count(), cas, leaves)
	if n := failures.count(); n > 0 {
		t.Errorf("%d admissions failed, the first: %v", n, failures.first())
	}
	if cas < 2 || leaves < 3 {
		t.Errorf("the Secret held %d CAs and %d serving certificates during the load; want at least 2 and 3 (a CA rollover and renewals)", cas, leaves)
	}
	if admitted.Load() < 1000 {
		t.Errorf("only %d Pods admitted: not much of a load", admitted.Load())
	}
	// Every replica is still ready and presents the Secret's certificate.
	bg := context.Background()
	for _, r := range replicas {
		waitFor(t, 30*time.Second, "replica "+r.name+" presenting the Secret's certificate", func() error {
			w, err := readSecret(bg, secret)
			if err != nil {
				return err
			}
			if served := r.served(); served == nil || !served.Equal(w.leaf) {
				return errors.New("it presents another certificate")
			}
			return r.readyz()
		})
	}
}

// loadClient is one client of the load, with its own rate limit.
func loadClient(t *testing.T) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS, cfg.Burst = clientQPS, clientQPS
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// watchSecret reads the Secret every 100 ms until ctx ends; the function
// it returns counts the distinct signing CAs and serving certificates
// seen, once ctx has ended.
func watchSecret(ctx context.Context, key client.ObjectKey) func() (cas, leaves int) {
	signing, served := map[[sha256.Size]byte]bool{}, map[[sha256.Size]byte]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if w, err := readSecret(ctx, key); err == nil {
				signing[sha256.Sum256(w.cas[0].Raw)] = true
				served[sha256.Sum256(w.leaf.Raw)] = true
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return func() (int, int) {
		<-done
		return len(signing), len(served)
	}
}

// failureLog records failed admissions.
type failureLog struct {
	mu    sync.Mutex
	errs  []error
	total int
}

func (f *failureLog) add(at time.Duration, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.total++
	if len(f.errs) < 10 {
		f.errs = append(f.errs, fmt.Errorf("after %v: %w", at.Round(time.Millisecond), err))
	}
}

func (f *failureLog) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.total
}

func (f *failureLog) first() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Join(f.errs...)
}

// projectLate copies the Secret's serving certificate into dir lag after
// each change, until ctx ends.
func projectLate(ctx context.Context, key client.ObjectKey, dir string, lag time.Duration) {
	type pending struct {
		due      time.Time
		crt, key []byte
	}
	var queue []pending
	var last []byte
	for ctx.Err() == nil {
		s := &corev1.Secret{}
		if err := env.Client.Get(ctx, key, s); err == nil {
			crt, k := s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]
			if _, err := tls.X509KeyPair(crt, k); err == nil && !bytes.Equal(crt, last) {
				queue, last = append(queue, pending{time.Now().Add(lag), crt, k}), crt
			}
		}
		for len(queue) > 0 && !time.Now().Before(queue[0].due) {
			_ = certs.WriteDir(dir, map[string][]byte{corev1.TLSCertKey: queue[0].crt, corev1.TLSPrivateKeyKey: queue[0].key})
			queue = queue[1:]
		}
		time.Sleep(50 * time.Millisecond)
	}
}
