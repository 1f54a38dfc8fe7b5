package csi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/csi"
)

// TestLivenessFollowsTheCSIEndpoint: the plugin's /healthz answers 200
// while the driver answers Probe on its socket, and 503 once it no longer
// does (audit L10: the plugin container had no liveness probe).
func TestLivenessFollowsTheCSIEndpoint(t *testing.T) {
	dir := t.TempDir()
	socket := dir + "/csi.sock"
	d, err := csi.New(csi.Config{NodeID: nodeName, Endpoint: "unix://" + socket, StateDir: dir + "/state", FuseRoot: dir, Mounter: csi.NewSyscallMounter()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx) }()
	waitForSocket(t, socket, served)
	srv := httptest.NewServer(csi.Health{Endpoint: "unix://" + socket})
	defer srv.Close()
	get := func() (int, string) {
		resp, err := http.Get(srv.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get(); code != http.StatusOK {
		t.Fatalf("a serving driver: %d %s", code, body)
	}
	stop()
	<-served
	if code, body := get(); code != http.StatusServiceUnavailable || !strings.Contains(body, "does not answer Probe") {
		t.Fatalf("a stopped driver: %d %s, want 503", code, body)
	}
}
