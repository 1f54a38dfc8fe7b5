package csi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Registrar tells the kubelet about the driver through the kubelet's plugin
// registration protocol, in place of the node-driver-registrar sidecar: it
// serves the Registration service on <Dir>/<driver>-reg.sock, which the
// kubelet's plugin watcher finds and calls.
type Registrar struct {
	// Dir is the kubelet's plugin registry, e.g. /var/lib/kubelet/plugins_registry.
	Dir string
	// DriverName is the CSI driver's name.
	DriverName string
	// Endpoint is the driver's socket as the kubelet sees it, e.g.
	// /var/lib/kubelet/plugins/fuse.csi.fluid.io/csi.sock.
	Endpoint string

	registerapi.UnimplementedRegistrationServer
	// registered records the kubelet's last answer, for probes and tests.
	registered chan *registerapi.RegistrationStatus
}

// Socket is where the registration service listens.
func (r *Registrar) Socket() string { return filepath.Join(r.Dir, r.DriverName+"-reg.sock") }

// GetInfo implements the Registration service.
func (r *Registrar) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return &registerapi.PluginInfo{Type: registerapi.CSIPlugin, Name: r.DriverName, Endpoint: r.Endpoint, SupportedVersions: []string{"1.0.0"}}, nil
}

// NotifyRegistrationStatus implements the Registration service.
func (r *Registrar) NotifyRegistrationStatus(_ context.Context, s *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	log := ctrl.Log.WithName("csi-registration")
	if s.PluginRegistered {
		log.Info("registered with the kubelet", "driver", r.DriverName)
	} else {
		log.Error(errors.New(s.Error), "the kubelet refused the registration", "driver", r.DriverName)
	}
	select {
	case r.registered <- s:
	default:
	}
	return &registerapi.RegistrationStatusResponse{}, nil
}

// Serve serves the registration service until ctx ends.
func (r *Registrar) Serve(ctx context.Context) error {
	if r.Dir == "" || r.DriverName == "" || r.Endpoint == "" {
		return fmt.Errorf("registration needs a registry directory, a driver name and the kubelet-visible endpoint")
	}
	if r.registered == nil {
		r.registered = make(chan *registerapi.RegistrationStatus, 1)
	}
	if err := os.MkdirAll(r.Dir, 0o750); err != nil {
		return err
	}
	if err := os.Remove(r.Socket()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	l, err := net.Listen("unix", r.Socket())
	if err != nil {
		return fmt.Errorf("listening on %s: %w", r.Socket(), err)
	}
	srv := grpc.NewServer()
	registerapi.RegisterRegistrationServer(srv, r)
	go func() {
		<-ctx.Done()
		srv.GracefulStop()
		_ = os.Remove(r.Socket())
	}()
	return srv.Serve(l)
}

// Registered returns the kubelet's registration answers.
func (r *Registrar) Registered() <-chan *registerapi.RegistrationStatus { return r.registered }
