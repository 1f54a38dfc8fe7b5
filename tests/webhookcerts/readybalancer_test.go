package webhookcerts_test

import (
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// How often the readyBalancer reads its backends' /readyz, and after how
// many unanswered polls in a row a backend is not ready.
const (
	readyPoll        = 100 * time.Millisecond
	failureThreshold = 3
)

// readyBalancer forwards each TCP connection it accepts to the next of its
// backends that was ready at the last poll, as a Service does through its
// EndpointSlice: only ready endpoints get new connections, and a backend
// whose /readyz answers anything but 200 is left out up to readyPoll late
// (a real Service lags the same way, by seconds). A backend whose /readyz
// does not answer (too slow, or its process gone) is left out after
// failureThreshold polls in a row, as the kubelet's probe does. A
// connection already forwarded stays with its backend, as conntrack keeps
// it. With no backend ready, a connection is closed at once (a Service
// without endpoints refuses it), and counted. TLS passes through.
type readyBalancer struct {
	addr string

	mu       sync.Mutex
	backends []*backend
	next     int
	conns    map[string]int // connections forwarded, by backend name
	refused  int            // connections closed with no backend ready
}

// backend is a replica's webhook and probe addresses: a replica restarted
// in place is the same backend.
type backend struct {
	name, addr, probe string
	ready             bool
	unanswered        int // polls in a row without an answer
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
	b := &readyBalancer{addr: l.Addr().String(), conns: map[string]int{}}
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

// connections returns how many connections each backend was given,
// removed ones included.
func (b *readyBalancer) connections() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.conns)
}

// poll reads every backend's /readyz each readyPoll until ctx ends.
func (b *readyBalancer) poll(ctx context.Context) {
	c := &http.Client{Timeout: 2 * time.Second}
	for ctx.Err() == nil {
		b.mu.Lock()
		probes := make([]string, len(b.backends))
		for i, be := range b.backends {
			probes[i] = be.probe
		}
		b.mu.Unlock()
		answers := map[string]bool{} // probe: 200, absent when unanswered
		for _, p := range probes {
			resp, err := c.Get("http://" + p + "/readyz")
			if err == nil {
				answers[p] = resp.StatusCode == http.StatusOK
				resp.Body.Close()
			}
		}
		b.mu.Lock()
		for _, be := range b.backends {
			ok, answered := answers[be.probe]
			switch {
			case answered:
				be.ready, be.unanswered = ok, 0
			case be.unanswered+1 >= failureThreshold:
				be.ready = false
			default:
				be.unanswered++
			}
		}
		b.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(readyPoll):
		}
	}
}

// refusals returns how many connections found no backend ready.
func (b *readyBalancer) refusals() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refused
}

// pick returns the next ready backend's address, "" when none is ready.
func (b *readyBalancer) pick() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for range b.backends {
		be := b.backends[b.next%len(b.backends)]
		b.next++
		if be.ready {
			b.conns[be.name]++
			return be.addr
		}
	}
	b.refused++
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
