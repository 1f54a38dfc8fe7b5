package csi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
)

// Driver serves the CSI Identity, Controller and Node services.
type Driver struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedControllerServer
	csi.UnimplementedNodeServer

	cfg     Config
	volumes keyLocks // per volume ID: stage and unstage
	targets keyLocks // per target path: publish and unpublish
	created struct { // volumes made by CreateVolume, name -> bytes
		mu    sync.Mutex
		sizes map[string]int64
	}
}

// New validates cfg and returns a Driver.
func New(cfg Config) (*Driver, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("invalid CSI driver configuration: %w", err)
	}
	return &Driver{cfg: cfg}, nil
}

// Serve serves gRPC on the configured unix socket until ctx ends.
func (d *Driver) Serve(ctx context.Context) error {
	path := strings.TrimPrefix(d.cfg.Endpoint, "unix://")
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the old socket %s: %w", path, err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", path, err)
	}
	srv := grpc.NewServer(grpc.UnaryInterceptor(logRequests))
	csi.RegisterIdentityServer(srv, d)
	csi.RegisterControllerServer(srv, d)
	csi.RegisterNodeServer(srv, d)
	go func() {
		<-ctx.Done()
		srv.GracefulStop()
	}()
	return srv.Serve(l)
}
