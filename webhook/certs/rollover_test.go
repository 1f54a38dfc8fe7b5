package certs

import (
	"crypto/x509"
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	r := Rotation{CAValidity: 100 * time.Hour, ServingValidity: 30 * time.Hour, RenewBefore: 10 * time.Hour, CheckInterval: time.Hour, Propagation: 2 * time.Hour}
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	ca := func(expires time.Duration) *x509.Certificate { return &x509.Certificate{NotAfter: t0.Add(expires)} }
	// The rollover of a CA expiring at t0+100h starts at t0+86h
	// (RenewBefore 10h plus twice Propagation 2h).
	for _, tc := range []struct {
		name       string
		a          authorities
		trustedFor time.Duration // how long both configurations have trusted next
		now        time.Duration // after t0
		want       decision
	}{
		{"long before the rollover: look again after CheckInterval",
			authorities{signing: ca(100 * time.Hour)}, -1, 0, decision{stepWait, time.Hour}},
		{"shortly before it: look again when it starts",
			authorities{signing: ca(100 * time.Hour)}, -1, 85*time.Hour + 50*time.Minute, decision{stepWait, 10 * time.Minute}},
		{"a retired CA expiring sooner: look again then",
			authorities{signing: ca(100 * time.Hour), retired: []*x509.Certificate{ca(30 * time.Minute)}}, -1, 0, decision{stepWait, 30 * time.Minute}},
		{"the rollover starts: trust the next CA",
			authorities{signing: ca(100 * time.Hour)}, -1, 86 * time.Hour, decision{stepTrustNext, 0}},
		{"next CA not trusted everywhere yet: wait for the injection",
			authorities{signing: ca(100 * time.Hour), next: ca(190 * time.Hour)}, -1, 86 * time.Hour, decision{stepWait, time.Hour}},
		{"next CA trusted for less than Propagation: wait out the rest",
			authorities{signing: ca(100 * time.Hour), next: ca(190 * time.Hour)}, 90 * time.Minute, 87 * time.Hour, decision{stepWait, 30 * time.Minute}},
		{"next CA trusted for Propagation: sign with it",
			authorities{signing: ca(100 * time.Hour), next: ca(190 * time.Hour)}, 2 * time.Hour, 88 * time.Hour, decision{stepSignWithNext, 0}},
		{"the retired CA expired: drop it",
			authorities{signing: ca(190 * time.Hour), retired: []*x509.Certificate{ca(100 * time.Hour)}}, -1, 100 * time.Hour, decision{stepTidy, 0}},
		{"a next key without its certificate: drop it",
			authorities{signing: ca(100 * time.Hour), orphanKey: true}, -1, 0, decision{stepTidy, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decide(tc.a, tc.trustedFor, t0.Add(tc.now), r); got != tc.want {
				t.Errorf("decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// state is the Secret at a moment of the simulation, and its serving
// certificate.
type state struct {
	at   time.Time
	data map[string][]byte
	leaf *x509.Certificate
}

// TestRolloverKeepsEveryCertificateTrusted simulates three CA lifetimes of
// one Secret, twenty minutes at a time, with cert-controller's own checks (it
// renews the serving certificate when it fails them RenewBefore ahead) and
// the rollover, and checks what matters to admissions: whatever bundle an
// API server holds and whatever certificate a replica presents, when they
// were written less than Propagation apart, the one trusts the other. And
// cert-controller never finds the CA due for replacement, which it would
// do at once.
func TestRolloverKeepsEveryCertificateTrusted(t *testing.T) {
	r := Rotation{CAValidity: 100 * time.Hour, ServingValidity: 30 * time.Hour, RenewBefore: 10 * time.Hour, CheckInterval: time.Hour, Propagation: 2 * time.Hour}
	is := testRotator()
	usages := is.ExtKeyUsages
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	ca := newCA(t, now.Add(-backdate), r.CAValidity)
	crt, key := newServing(t, ca, now.Add(-backdate), r.ServingValidity)
	data := map[string][]byte{CACertKey: ca.CertPEM, CAKeyKey: ca.KeyPEM, "tls.crt": crt, "tls.key": key}

	var history []state
	var injectedAt time.Time // when ca.crt last changed: cert-controller injects it at once
	steps := map[step]int{}
	renewals := 0
	const tick = 20 * time.Minute
	for end := now.Add(3 * r.CAValidity); now.Before(end); now = now.Add(tick) {
		// cert-controller's checks, RenewBefore ahead.
		ahead := now.Add(r.RenewBefore)
		if ok, err := rotatorValid(data[CACertKey], data[CACertKey], data[CAKeyKey], caName, nil, ahead); !ok {
			t.Fatalf("%v: cert-controller would replace the CA at once: %v", now, err)
		}
		if ok, _ := rotatorValid(data[CACertKey], data["tls.crt"], data["tls.key"], testDNSName, usages, ahead); !ok {
			a, err := readAuthorities(data)
			if err != nil {
				t.Fatal(err)
			}
			signingKey, err := parseRSAKey(data[CAKeyKey])
			if err != nil {
				t.Fatal(err)
			}
			crt, key := newServing(t, &rotatorArtifacts{Cert: a.signing, Key: signingKey}, now.Add(-backdate), r.ServingValidity)
			data = cloneWith(data, map[string][]byte{"tls.crt": crt, "tls.key": key})
			renewals++
		}
		// The rollover.
		a, err := readAuthorities(data)
		if err != nil {
			t.Fatal(err)
		}
		trustedFor := time.Duration(-1)
		if a.next != nil {
			trustedFor = now.Sub(injectedAt)
		}
		if d := decide(a, trustedFor, now, r); d.step != stepWait {
			next, err := apply(d.step, data, a, is, r, now)
			if err != nil {
				t.Fatal(err)
			}
			if string(next[CACertKey]) != string(data[CACertKey]) {
				injectedAt = now
			}
			data = next
			steps[d.step]++
		}
		cur := state{at: now, data: data}
		if prev := len(history) - 1; prev >= 0 && string(history[prev].data["tls.crt"]) == string(data["tls.crt"]) {
			cur.leaf = history[prev].leaf
		} else {
			cur.leaf = leafOfPEM(t, data["tls.crt"], data["tls.key"])
		}
		history = append(history, cur)
		for _, old := range history {
			if now.Sub(old.at) >= r.Propagation {
				continue
			}
			for _, pair := range [][2]state{{old, cur}, {cur, old}} {
				if err := verifyWith(pair[0].data[CACertKey], pair[1].leaf, now); err != nil {
					t.Fatalf("%v: the certificate written at %v is not trusted by the bundle written at %v: %v", now, pair[1].at, pair[0].at, err)
				}
			}
		}
		history = history[max(0, len(history)-int(r.Propagation/tick)-1):]
	}
	t.Logf("steps %v, serving certificate renewals %d", steps, renewals)
	if steps[stepSignWithNext] < 2 || steps[stepTrustNext] != steps[stepSignWithNext] || steps[stepTidy] < 2 || renewals < 3 {
		t.Errorf("three CA lifetimes took steps %v and %d renewals; want at least two complete rollovers and three renewals", steps, renewals)
	}
}

func cloneWith(data, changes map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range data {
		out[k] = v
	}
	for k, v := range changes {
		out[k] = v
	}
	return out
}

// Tidying drops expired CAs and a next key whose certificate is gone
// (cert-controller replaced the CA in the middle of a rollover), and keeps
// the rest in order.
func TestTidy(t *testing.T) {
	now := time.Now()
	signing, expired, valid, orphan := newCA(t, now.Add(-time.Hour), 48*time.Hour), newCA(t, now.Add(-48*time.Hour), 24*time.Hour),
		newCA(t, now.Add(-time.Hour), 24*time.Hour), newCA(t, now.Add(-time.Hour), 24*time.Hour)
	data := map[string][]byte{
		CACertKey:    encodeCerts(signing.Cert, expired.Cert, valid.Cert),
		CAKeyKey:     signing.KeyPEM,
		NextCAKeyKey: orphan.KeyPEM,
	}
	a, err := readAuthorities(data)
	if err != nil {
		t.Fatal(err)
	}
	if !a.orphanKey || a.next != nil || len(a.retired) != 2 {
		t.Fatalf("read %+v: want two retired CAs and an orphaned next key", a)
	}
	if d := decide(a, -1, now, DefaultRotation); d.step != stepTidy {
		t.Fatalf("decide = %+v, want %s", d, stepTidy)
	}
	out, err := apply(stepTidy, data, a, testRotator(), DefaultRotation, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out[NextCAKeyKey]; ok {
		t.Error("the orphaned next key was kept")
	}
	if got, want := string(out[CACertKey]), string(encodeCerts(signing.Cert, valid.Cert)); got != want {
		t.Errorf("ca.crt after tidying holds %d certificates, want the signing CA and the unexpired one", len(mustParse(t, out[CACertKey])))
	}
	if _, ok := data[NextCAKeyKey]; !ok {
		t.Error("apply changed its input")
	}
}

func mustParse(t *testing.T, data []byte) []*x509.Certificate {
	t.Helper()
	certs, err := parseCerts(data)
	if err != nil {
		t.Fatal(err)
	}
	return certs
}
