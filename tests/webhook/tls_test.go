package webhook_test

import (
	"crypto/tls"
	"net"
	"strconv"
	"testing"
)

// TestWebhookServerTLS (reliability audit L11): the running webhook offers
// no HTTP/2 (only HTTP/1.1 is negotiated) and refuses TLS below 1.2.
func TestWebhookServerTLS(t *testing.T) {
	wi := env.Webhook()
	addr := net.JoinHostPort(wi.LocalServingHost, strconv.Itoa(wi.LocalServingPort))
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2", "http/1.1"}}) //nolint:gosec // reading the server's choices only
	if err != nil {
		t.Fatal(err)
	}
	if p := conn.ConnectionState().NegotiatedProtocol; p == "h2" {
		t.Errorf("the webhook negotiated %q", p)
	}
	conn.Close()
	if conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11}); err == nil { //nolint:gosec // probing the minimum version
		conn.Close()
		t.Error("the webhook accepted TLS 1.1")
	}
}
