package csi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// probeTimeout bounds one liveness check's Probe call.
const probeTimeout = 3 * time.Second

// Health serves the plugin container's liveness probe: GET /healthz calls
// the driver's Probe over its own CSI endpoint, as Kubernetes'
// livenessprobe sidecar does, so a plugin whose gRPC server no longer
// answers (wedged, or its socket removed) is restarted by the kubelet.
type Health struct {
	// Endpoint is the driver's CSI endpoint, unix:///....
	Endpoint string
}

// ServeHTTP implements http.Handler.
func (h Health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/healthz" {
		http.NotFound(w, r)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
	defer cancel()
	if err := h.probe(ctx); err != nil {
		http.Error(w, "the CSI endpoint does not answer Probe: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

func (h Health) probe(ctx context.Context) error {
	conn, err := grpc.NewClient(h.Endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	resp, err := csi.NewIdentityClient(conn).Probe(ctx, &csi.ProbeRequest{}, grpc.WaitForReady(false))
	if err != nil {
		return err
	}
	if r := resp.GetReady(); r != nil && !r.GetValue() {
		return errors.New("the driver reports it is not ready")
	}
	return nil
}

// ServeHealth serves Health on addr until ctx ends.
func ServeHealth(ctx context.Context, addr, endpoint string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s for the liveness probe: %w", addr, err)
	}
	srv := &http.Server{Handler: Health{Endpoint: endpoint}, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
