package webhookcerts_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// readyPoll is how often the readyBalancer reads its backends' /readyz.
const readyPoll = 100 * time.Millisecond

// readyBalancer forwards each TCP connection it accepts to the next of its
// backends that was ready at the last poll, as a Service does through its
// EndpointSlice: only ready endpoints get new connections, and a backend
// that stops being ready is left out up to readyPoll late (a real Service
// lags the same way, by seconds). A connection already forwarded stays with
// its backend, as conntrack keeps it. With no backend ready, a connection
// is closed at once (a Service without endpoints refuses it). TLS passes
// through.
type readyBalancer struct {
	addr string

	mu       sync.Mutex
	backends []*backend
	next     int
}

// backend is a replica's webhook and probe addresses: a replica restarted
// in place is the same backend.
type backend struct {
	name, addr, probe string
	ready             bool
	conns             int // connections forwarded to it
}

// startReadyBalancer starts a balancer with no backends; add them with add.
func startReadyBalancer(t *testing.T) *readyBalancer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(func() { stop(); _ = l.Close() })
	b := &readyBalancer{addr: l.Addr().String()}
	go b.poll(ctx)
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			go b.forward(in)
		}
	}()
	return b
}

// add makes r's addresses a backend, not ready until a poll says so.
func (b *readyBalancer) add(r *replica) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.backends = append(b.backends, &backend{name: r.name, addr: r.addr, probe: r.probe})
}

// remove drops the backend at r's address (its Pod is gone).
func (b *readyBalancer) remove(r *replica) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.backends = slices.DeleteFunc(b.backends, func(be *backend) bool { return be.addr == r.addr })
}

// connections returns how many connections each backend was given.
func (b *readyBalancer) connections() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]int{}
	for _, be := range b.backends {
		out[be.name] += be.conns
	}
	return out
}

// poll reads every backend's /readyz each readyPoll until ctx ends.
func (b *readyBalancer) poll(ctx context.Context) {
	c := &http.Client{Timeout: time.Second}
	for ctx.Err() == nil {
		b.mu.Lock()
		probes := make([]string, len(b.backends))
		for i, be := range b.backends {
			probes[i] = be.probe
		}
		b.mu.Unlock()
		ready := map[string]bool{}
		for _, p := range probes {
			resp, err := c.Get("http://" + p + "/readyz")
			if err == nil {
				ready[p] = resp.StatusCode == http.StatusOK
				resp.Body.Close()
			}
		}
		b.mu.Lock()
		for _, be := range b.backends {
			be.ready = ready[be.probe]
		}
		b.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(readyPoll):
		}
	}
}

// pick returns the next ready backend's address, "" when none is ready.
func (b *readyBalancer) pick() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for range b.backends {
		be := b.backends[b.next%len(b.backends)]
		b.next++
		if be.ready {
			be.conns++
			return be.addr
		}
	}
	return ""
}

func (b *readyBalancer) forward(in net.Conn) {
	defer in.Close()
	to := b.pick()
	if to == "" {
		return
	}
	out, err := net.Dial("tcp", to)
	if err != nil {
		return // refused: the caller sees its connection closed
	}
	defer out.Close()
	go func() {
		_, _ = io.Copy(out, in)
		_ = out.(*net.TCPConn).CloseWrite() // the caller is done sending
	}()
	_, _ = io.Copy(in, out)
}
