package datapath_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// Keys of the test's S3 server, given to the FUSE program through the
// sample's Secret.
const (
	accessKey = "SLUICEDATAPATH"
	secretKey = "datapath-secret-key"
)

// s3Server is `rclone serve s3` over a local directory (each top-level
// directory a bucket) behind a proxy that counts the requests reaching it
// and can take the server offline.
type s3Server struct {
	// Endpoint is the proxy's URL, the Dataset's endpoint option.
	Endpoint string
	gets     atomic.Int64 // GETs of an object (not of a bucket's listing)
	requests atomic.Int64
	offline  atomic.Bool
}

// ObjectGets is how many object GETs reached the server.
func (s *s3Server) ObjectGets() int64 { return s.gets.Load() }

// Requests is how many requests reached the proxy.
func (s *s3Server) Requests() int64 { return s.requests.Load() }

// Offline makes the proxy answer 503 to every request.
func (s *s3Server) Offline(off bool) { s.offline.Store(off) }

// serveS3 serves dir over S3 until the test ends.
func serveS3(tb testing.TB, t tools, dir string) *s3Server {
	tb.Helper()
	addr := testenv.FreeAddr(tb)
	out := &testenv.LockedBuffer{}
	// No directory cache: a file the benchmark writes is served at once.
	cmd := exec.Command(t.rclone, "serve", "s3", dir, "--addr", addr, "--auth-key", accessKey+","+secretKey,
		"--dir-cache-time", "0s", "--log-level", "NOTICE")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("rclone serve s3 is not listening on %s: %v\n%s", addr, err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	s := &s3Server{}
	// The proxy keeps the Host header the client signed.
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: addr})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if s.offline.Load() {
			http.Error(w, "offline", http.StatusServiceUnavailable)
			return
		}
		if r.Method == http.MethodGet && strings.Contains(strings.Trim(r.URL.Path, "/"), "/") {
			s.gets.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	tb.Cleanup(srv.Close)
	s.Endpoint = srv.URL
	return s
}
