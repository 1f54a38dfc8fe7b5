package webhookcerts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestReadyOnlyOnceBothConfigurationsTrustTheCertificate starts a
// self-managed replica on an empty Secret before any webhook configuration
// exists. It fills the Secret and presents its certificate, but /readyz
// fails until cert-controller has injected the CA into both
// configurations, created one after the other; then the API server calls
// it, trusting the certificate, for a Dataset (validating) and a Pod
// (mutating).
func TestReadyOnlyOnceBothConfigurationsTrustTheCertificate(t *testing.T) {
	ns := env.Namespace(t)
	secret := createEmptySecret(t, ns, "sluice-webhook-cert")
	cfgs := newConfigurations(ns)
	r := startReplica(t, "a", ns, replicaOptions{env: selfManaged(secret.Name, cfgs), args: []string{"--cert-extra-dns-names=localhost"}})
	url := fmt.Sprintf("https://localhost:%d", port(r.addr))

	// Watch /readyz from the start: when was it first ready?
	var firstReady atomic.Pointer[time.Time]
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		for ctx.Err() == nil {
			if r.readyz() == nil {
				now := time.Now()
				firstReady.CompareAndSwap(nil, &now)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()

	var w written
	waitFor(t, 60*time.Second, "the Secret filled and its certificate presented", func() error {
		if err := r.exited(); err != nil {
			return err
		}
		var err error
		if w, err = readSecret(ctx, secret); err != nil {
			return err
		}
		if served := r.served(); served == nil || !served.Equal(w.leaf) {
			return errors.New("the replica does not present the Secret's certificate yet")
		}
		return nil
	})
	if err := r.certificateCheck(); err == nil || !strings.Contains(err.Error(), cfgs.mutating) {
		t.Fatalf("ready without any webhook configuration: /readyz/certificate says %v", err)
	}

	cfgs.createMutating(t, configurationOptions{mutatingURL: url})
	waitFor(t, 30*time.Second, "the CA injected into the mutating configuration", func() error {
		return injected(ctx, cfgs.mutatingBundles, w.caBundle)
	})
	time.Sleep(time.Second) // /readyz is polled meanwhile
	if err := r.certificateCheck(); err == nil || !strings.Contains(err.Error(), cfgs.validating) {
		t.Fatalf("ready without the validating configuration: /readyz/certificate says %v", err)
	}

	validatingCreated := time.Now()
	cfgs.createValidating(t, configurationOptions{validatingURL: url})
	waitFor(t, 30*time.Second, "ready", r.readyz)
	if at := firstReady.Load(); at != nil && at.Before(validatingCreated) {
		t.Fatalf("/readyz succeeded at %v, before the validating configuration was created at %v", at, validatingCreated)
	}
	checkInjected(t, ctx, cfgs, secret)

	// The API server trusts the certificate in both directions.
	podNS := env.Namespace(t)
	seedDataset(t, podNS, "imagenet") // validating webhook, failurePolicy Fail
	// Until the webhook's cache has the new PVC it asks for a retry.
	waitFor(t, testenv.Stretch(10*time.Second), "a labelled Pod created and mutated", func() error {
		return createMutated(ctx, env.Client, labelledPod(podNS, "p", "imagenet"), "imagenet")
	})
}

// TestReplicasAgreeOnOneCA starts two self-managed replicas at once on an
// empty Secret, as a Deployment's first rollout does. Both try to create
// the CA; one write wins, the other conflicts and takes the winner's. In
// the end the Secret holds one CA, both configurations trust exactly it,
// both replicas present the Secret's certificate, and the API server calls
// each of them: the mutating webhook points at one, the validating at
// the other.
func TestReplicasAgreeOnOneCA(t *testing.T) {
	ns := env.Namespace(t)
	secret := createEmptySecret(t, ns, "sluice-webhook-cert")
	cfgs := newConfigurations(ns)
	o := replicaOptions{env: selfManaged(secret.Name, cfgs), args: []string{"--cert-extra-dns-names=localhost"}}
	a, b := startReplica(t, "a", ns, o), startReplica(t, "b", ns, o)
	cfgs.createMutating(t, configurationOptions{mutatingURL: fmt.Sprintf("https://localhost:%d", port(a.addr))})
	cfgs.createValidating(t, configurationOptions{validatingURL: fmt.Sprintf("https://localhost:%d", port(b.addr))})
	for _, r := range []*replica{a, b} {
		waitFor(t, 60*time.Second, "replica "+r.name+" ready", func() error {
			if err := r.exited(); err != nil {
				return err
			}
			return r.readyz()
		})
	}
	ctx := context.Background()
	w := checkInjected(t, ctx, cfgs, secret)
	if len(w.cas) != 1 {
		t.Errorf("the Secret holds %d CAs, want one", len(w.cas))
	}
	for _, r := range []*replica{a, b} {
		if served := r.served(); served == nil || !served.Equal(w.leaf) {
			t.Errorf("replica %s does not present the Secret's certificate", r.name)
		}
	}
	// Settled: nobody keeps rewriting the Secret.
	time.Sleep(3 * time.Second)
	if again, err := readSecret(ctx, secret); err != nil || again.version != w.version {
		t.Errorf("the Secret changed again after both replicas were ready (resourceVersion %s -> %s, %v)", w.version, again.version, err)
	}

	podNS := env.Namespace(t)
	// The Dataset is validated by b, the Pod mutated by a.
	seedDataset(t, podNS, "imagenet")
	if err := createMutatedOnceSeen(ctx, t, labelledPod(podNS, "p", "imagenet"), "imagenet"); err != nil {
		t.Fatal(err)
	}
}

// injected checks that every webhook of one configuration holds bundle.
func injected(ctx context.Context, bundles func(context.Context) (map[string][]byte, error), bundle []byte) error {
	got, err := bundles(ctx)
	if err != nil {
		return err
	}
	for w, b := range got {
		if !bytes.Equal(b, bundle) {
			return fmt.Errorf("%s has another caBundle (%d bytes)", w, len(b))
		}
	}
	return nil
}

// checkInjected checks that every webhook of both configurations holds
// exactly the Secret's ca.crt, which trusts the Secret's certificate, and
// returns what the Secret holds.
func checkInjected(t *testing.T, ctx context.Context, cfgs configurations, secret client.ObjectKey) written {
	t.Helper()
	w, err := readSecret(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	bundles, err := cfgs.caBundles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range bundles {
		if !bytes.Equal(b, w.caBundle) {
			t.Errorf("%s: the caBundle is not the Secret's ca.crt", name)
		}
	}
	if err := trusts(w.caBundle, w.leaf); err != nil {
		t.Errorf("the Secret's CA does not trust its certificate: %v", err)
	}
	return w
}
