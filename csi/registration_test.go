package csi

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// TestRegistration plays the kubelet's plugin watcher: it dials the
// registration socket, asks for the plugin's info and reports success.
func TestRegistration(t *testing.T) {
	r := &Registrar{Dir: filepath.Join(t.TempDir(), "plugins_registry"), DriverName: DriverName, Endpoint: "/var/lib/kubelet/plugins/fuse.csi.fluid.io/csi.sock"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan error, 1)
	go func() { errs <- r.Serve(ctx) }()
	var conn *grpc.ClientConn
	var info *registerapi.PluginInfo
	deadline := time.Now().Add(5 * time.Second)
	for {
		var err error
		conn, err = grpc.NewClient("unix://"+r.Socket(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err == nil {
			info, err = registerapi.NewRegistrationClient(conn).GetInfo(ctx, &registerapi.InfoRequest{})
		}
		if err == nil {
			break
		}
		if conn != nil {
			conn.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("registration socket not served: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer conn.Close()
	if info.Type != registerapi.CSIPlugin || info.Name != DriverName || info.Endpoint != r.Endpoint || info.SupportedVersions[0] != "1.0.0" {
		t.Fatalf("plugin info = %+v", info)
	}
	if _, err := registerapi.NewRegistrationClient(conn).NotifyRegistrationStatus(ctx, &registerapi.RegistrationStatus{PluginRegistered: true}); err != nil {
		t.Fatal(err)
	}
	if s := <-r.Registered(); !s.PluginRegistered {
		t.Fatalf("status = %+v", s)
	}
}
