package certs

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Bounds of the readiness check's reads of the caBundles (liveBundles).
const (
	// bundleReadTimeout bounds one live read, shorter than the kubelet's
	// one-second default probe timeout: a slow API server makes the read
	// fail, not the probe hang.
	bundleReadTimeout = 500 * time.Millisecond
	// maxBundleStaleness is how long the caBundles last read stand in for
	// reads that fail, e.g. while the API server restarts, so that a short
	// outage does not take every replica out of its Service at once. It
	// is far shorter than a CA rollover's steps (Rotation.Propagation),
	// so a replica cut off from the API server stops being ready long
	// before the CA it serves under could be dropped from a caBundle.
	maxBundleStaleness = 30 * time.Second
)

// liveBundles reads the caBundles of both webhook configurations from the
// API server (an uncached reader) on each call. When a read fails for a
// reason other than the API server's answer that a configuration is gone
// or not readable, the last caBundles read are returned instead while they
// are at most maxStale old.
type liveBundles struct {
	reader               client.Reader
	mutating, validating string
	timeout, maxStale    time.Duration

	mu   sync.Mutex
	last map[string][]byte
	at   time.Time
}

func (b *liveBundles) read(ctx context.Context, now time.Time) (map[string][]byte, error) {
	if b == nil || b.reader == nil {
		return nil, fmt.Errorf("the webhook configurations are not read yet (the manager is not set up)")
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	bundles, err := caBundles(ctx, b.reader, b.mutating, b.validating)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		b.last, b.at = bundles, now
		return bundles, nil
	}
	if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || b.last == nil {
		return nil, err
	}
	if age := now.Sub(b.at); age > b.maxStale {
		return nil, fmt.Errorf("%w; the caBundles last read are %s old, more than %s", err, age.Round(time.Second), b.maxStale)
	}
	return b.last, nil
}
