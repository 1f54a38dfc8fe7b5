package certs

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// rolloverReconciler replaces the self-managed CA before it expires
// (decide). Every replica runs it; they agree through the Secret's
// resourceVersion: a write based on an old read fails with a conflict,
// and the loser decides again from the new Secret.
type rolloverReconciler struct {
	client     client.Client
	secret     types.NamespacedName
	mutating   string
	validating string
	issuer     issuer
	rotation   Rotation
	now        func() time.Time

	// When this replica first saw every webhook trust the next CA, by
	// the CA's fingerprint.
	trustedNext   [sha256.Size]byte
	trustedNextAt time.Time
}

// Reconcile takes the rollover's next step, or waits for it.
func (r *rolloverReconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	secret := &corev1.Secret{}
	if err := r.client.Get(ctx, r.secret, secret); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	a, err := readAuthorities(secret.Data)
	if err != nil {
		return ctrl.Result{}, nil // not written yet, or unusable: cert-controller's to (re)create
	}
	now := r.now()
	trustedFor, err := r.nextTrustedFor(ctx, a, now)
	if err != nil {
		return ctrl.Result{}, err
	}
	d := decide(a, trustedFor, now, r.rotation)
	if d.step == stepWait {
		return ctrl.Result{RequeueAfter: d.recheck}, nil
	}
	data, err := apply(d.step, secret.Data, a, r.issuer, r.rotation, now)
	if err != nil {
		return ctrl.Result{}, err
	}
	log := ctrl.LoggerFrom(ctx).WithValues("secret", r.secret, "step", d.step)
	log.Info("rolling the webhook's CA over", "signingCANotAfter", a.signing.NotAfter)
	updated := secret.DeepCopy()
	updated.Data = data
	if err := r.client.Update(ctx, updated); err != nil {
		return ctrl.Result{}, fmt.Errorf("CA rollover step %s: writing Secret %s: %w", d.step, r.secret, err)
	}
	return ctrl.Result{}, nil
}

// nextTrustedFor is how long every webhook has trusted the next CA, as
// this replica saw; -1 while one does not, or outside a rollover.
func (r *rolloverReconciler) nextTrustedFor(ctx context.Context, a authorities, now time.Time) (time.Duration, error) {
	if a.next == nil {
		return -1, nil
	}
	bundles, err := caBundles(ctx, r.client, r.mutating, r.validating)
	if client.IgnoreNotFound(err) != nil {
		return 0, err
	}
	trusted := err == nil
	for _, b := range bundles {
		trusted = trusted && bundleContains(b, a.next)
	}
	fp := sha256.Sum256(a.next.Raw)
	switch {
	case !trusted:
		r.trustedNextAt = time.Time{}
		return -1, nil
	case fp != r.trustedNext || r.trustedNextAt.IsZero():
		r.trustedNext, r.trustedNextAt = fp, now
	}
	return now.Sub(r.trustedNextAt), nil
}
