package webhookcerts_test

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
)

// startBalancer forwards the TCP connections it accepts to the backends in
// turn, as a Service does to a Deployment's replicas; TLS passes through.
// It returns its address.
func startBalancer(t *testing.T, backends ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	var next atomic.Uint64
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer in.Close()
				out, err := net.Dial("tcp", backends[next.Add(1)%uint64(len(backends))])
				if err != nil {
					return
				}
				defer out.Close()
				go func() { _, _ = io.Copy(out, in) }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
	return l.Addr().String()
}
