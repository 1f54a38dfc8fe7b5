package webhook

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// drain is how the webhook stops. Told to stop (SIGTERM), it keeps serving
// for delay while its readiness check fails, so that the Service, which
// learns of a terminating or unready endpoint late, stops sending it
// connections before its listener closes; meanwhile each response asks the
// caller to close its connection, so that the API server's next call opens
// a new one, to a replica that stays. Then the manager stops, and the
// webhook server answers the requests in flight (serving).
type drain struct {
	delay    time.Duration
	draining atomic.Bool
}

// errDraining is the readiness check's answer while the webhook drains.
var errDraining = errors.New("shutting down: serving the requests that still arrive (--shutdown-delay)")

// check is the readiness check: it fails once the webhook was told to stop.
func (d *drain) check(*http.Request) error {
	if d.draining.Load() {
		return errDraining
	}
	return nil
}

// maxAdmissionTimeout bounds an admission whose caller sent no timeout:
// the longest timeoutSeconds the API server allows.
const maxAdmissionTimeout = 30 * time.Second

// serving wraps an admission handler for the shutdown. While draining it
// answers with Connection: close, so that callers do not reuse a
// connection to a replica that is going away. And the request's context
// does not end when the server shuts down (controller-runtime's webhook
// server derives every request's context from the manager's, and would
// cancel the policy evaluations in flight, denying their Pods): it ends
// with the timeout the API server sent (?timeout=10s), or
// maxAdmissionTimeout.
func (d *drain) serving(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		timeout := maxAdmissionTimeout
		if t, err := time.ParseDuration(r.URL.Query().Get("timeout")); err == nil && t > 0 && t < timeout {
			timeout = t
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), timeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// after returns a context that ends delay after parent does; the webhook
// drains from the moment parent ends.
func (d *drain) after(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	stop := context.AfterFunc(parent, func() {
		d.draining.Store(true)
		ctrl.Log.WithName("webhook").Info("told to stop: not ready, still serving", "shutdownDelay", d.delay)
		select {
		case <-time.After(d.delay):
		case <-ctx.Done():
		}
		cancel()
	})
	return ctx, func() { stop(); cancel() }
}

// drainingManager is the webhook's manager: Start runs it until delay
// after its context ends (drain).
type drainingManager struct {
	manager.Manager
	drain *drain
}

// Start runs the manager until the shutdown delay after ctx ends.
func (m *drainingManager) Start(ctx context.Context) error {
	ctx, cancel := m.drain.after(ctx)
	defer cancel()
	return m.Manager.Start(ctx)
}
