package metricsauth

import (
	"crypto/tls"
	"slices"
	"testing"
)

// TestServerOptions: plain options serve HTTP to anyone; secure ones serve
// HTTPS behind the authentication and authorization filter, HTTP/1.1 and
// TLS 1.2 or later only.
func TestServerOptions(t *testing.T) {
	plain := ServerOptions(":8080", false)
	if plain.BindAddress != ":8080" || plain.SecureServing || plain.FilterProvider != nil || len(plain.TLSOpts) != 0 {
		t.Errorf("plain: %+v, want HTTP on :8080 with no filter", plain)
	}
	secure := ServerOptions(":8080", true)
	if secure.BindAddress != ":8080" || !secure.SecureServing || secure.FilterProvider == nil {
		t.Fatalf("secure: %+v, want HTTPS on :8080 behind a filter", secure)
	}
	cfg := &tls.Config{NextProtos: []string{"h2"}} // controller-runtime's starting point
	for _, o := range secure.TLSOpts {
		o(cfg)
	}
	if slices.Contains(cfg.NextProtos, "h2") || cfg.MinVersion < tls.VersionTLS12 {
		t.Errorf("secure TLS: protocols %v, minimum %#x; want HTTP/1.1 only, TLS 1.2 or later", cfg.NextProtos, cfg.MinVersion)
	}
}

// TestHardenTLS: the webhook server and the secure metrics servers speak
// HTTP/1.1 only, TLS 1.2 or later (reliability audit L11).
func TestHardenTLS(t *testing.T) {
	c := &tls.Config{NextProtos: []string{"h2", "http/1.1"}}
	HardenTLS(c)
	if !slices.Equal(c.NextProtos, []string{"http/1.1"}) || c.MinVersion != tls.VersionTLS12 {
		t.Errorf("NextProtos %v, MinVersion %x", c.NextProtos, c.MinVersion)
	}
}
