package certs

import (
	"crypto/x509"
	"time"
)

// step is what the CA rollover does next.
type step string

const (
	// stepWait: nothing to do before the decision's Recheck.
	stepWait step = "wait"
	// stepTrustNext creates the next CA and adds it to ca.crt, which
	// cert-controller injects: both CAs are trusted, the current one signs.
	stepTrustNext step = "trust-next"
	// stepSignWithNext makes the next CA sign: it goes first in ca.crt,
	// its key becomes ca.key, and a serving certificate it signed is
	// written with it. The previous CA stays trusted.
	stepSignWithNext step = "sign-with-next"
	// stepTidy removes expired CAs from ca.crt, and a ca-next.key whose
	// certificate is gone.
	stepTidy step = "tidy"
)

// decision is a step and, when it is stepWait, how soon to look again if
// nothing changes before.
type decision struct {
	step    step
	recheck time.Duration
}

// decide is the rollover's next step. nextTrustedFor is how long every
// webhook of both configurations has trusted the next CA (negative while
// one does not).
//
// The rollover starts rolloverLead before the signing CA expires: first
// the next CA is trusted beside it; once every API server has had
// Propagation to see that, it signs; the old CA stays trusted until it
// expires, long after every replica has loaded a certificate of the new
// one. No moment has a replica presenting a certificate that an API
// server does not trust.
func decide(a authorities, nextTrustedFor time.Duration, now time.Time, r Rotation) decision {
	if a.orphanKey || expiredAmong(a.retired, now) {
		return decision{step: stepTidy}
	}
	if a.next != nil {
		switch {
		case nextTrustedFor >= r.Propagation:
			return decision{step: stepSignWithNext}
		case nextTrustedFor >= 0:
			return decision{step: stepWait, recheck: r.Propagation - nextTrustedFor}
		default: // the injection shows up as a change of the configurations
			return decision{step: stepWait, recheck: r.CheckInterval}
		}
	}
	start := a.signing.NotAfter.Add(-r.rolloverLead())
	if !now.Before(start) {
		return decision{step: stepTrustNext}
	}
	recheck := min(start.Sub(now), r.CheckInterval)
	for _, c := range a.retired {
		recheck = min(recheck, c.NotAfter.Sub(now))
	}
	return decision{step: stepWait, recheck: recheck}
}

func expiredAmong(certs []*x509.Certificate, now time.Time) bool {
	for _, c := range certs {
		if !now.Before(c.NotAfter) {
			return true
		}
	}
	return false
}
