package csi

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestServeMetrics: the plugin's metrics endpoint serves its build info
// (plain HTTP here; the secure server is controller-runtime's, as the
// controller's and the webhook's, tested through the chart in tests/chart).
func TestServeMetrics(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeMetrics(ctx, addr, false, &rest.Config{Host: "http://127.0.0.1:1"}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeMetrics: %v", err)
		}
	}()
	var body string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		break
	}
	if !strings.Contains(body, `sluice_build_info{component="csi",`) {
		t.Errorf("no sluice_build_info{component=\"csi\"} in the metrics:\n%.2000s", body)
	}
}

// TestServeMetricsOff: "0" (the flag's default) and "" serve nothing.
func TestServeMetricsOff(t *testing.T) {
	for _, addr := range []string{"0", ""} {
		if err := ServeMetrics(context.Background(), addr, true, &rest.Config{}); err != nil {
			t.Errorf("ServeMetrics(%q): %v", addr, err)
		}
	}
}
