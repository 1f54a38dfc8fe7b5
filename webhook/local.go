package webhook

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
)

// StartLocal runs the webhook in-process (for `sluice dev` and tests): it
// picks a free local address for the health probes, starts the manager in
// the background until ctx ends, and returns once /readyz succeeds.
func StartLocal(ctx context.Context, cfg *rest.Config, o *Options, timeout time.Duration) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	o.ProbeAddr = l.Addr().String()
	l.Close()
	mgr, err := New(cfg, o)
	if err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			ctrl.Log.WithName("webhook").Error(err, "manager stopped")
		}
	}()
	url := "http://" + o.ProbeAddr + "/readyz"
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("webhook not ready after %v (%s)", timeout, url)
}
