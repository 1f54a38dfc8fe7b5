package webhookcerts_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
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
// (a real Service lags the same way, by seconds). A backend whose probe
// port refuses connections (its process gone) is left out after
// failureThreshold polls in a row, as the kubelet's probe does; a poll
// that times out changes nothing: on the shared 2-core test machine a
// replica starved of CPU answers /readyz seconds late (measured: over 6 s
// while golangci-lint ran), and which replica the kubelet's 1 s timeout
// would then drop is the test machine's load, not the rollout's. A
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
	changes  []string       // readiness changes, with why
	start    time.Time
}

// backend is a replica's webhook and probe addresses: a replica restarted
// in place is the same backend.
type backend struct {
	name, addr, probe string
	ready             bool
	unanswered        int       // polls in a row without an answer
	deleted           time.Time // when its Pod was deleted (delete), else zero
}

// endpointLag is how late the balancer learns that a backend's Pod was
// deleted (an EndpointSlice marks a terminating endpoint not ready at
// once; kube-proxy applies it a moment later).
const endpointLag = time.Second

// delete marks r's Pod deleted: from endpointLag on it gets no new
// connection, whatever its /readyz says (a starved replica may not answer
// its probe for seconds).
func (b *readyBalancer) delete(r *replica) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, be := range b.backends {
		if be.addr == r.addr {
			be.deleted = time.Now()
		}
	}
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
	b := &readyBalancer{addr: l.Addr().String(), conns: map[string]int{}, start: time.Now()}
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
		readyBefore := map[string]bool{}
		for i, be := range b.backends {
			probes[i] = be.probe
			readyBefore[be.probe] = be.ready
		}
		b.mu.Unlock()
		answers := map[string]bool{} // probe: 200, absent when unanswered
		why := map[string]string{}
		for _, p := range probes {
			resp, err := c.Get("http://" + p + "/readyz")
			if err != nil {
				if !errors.Is(err, context.DeadlineExceeded) && !os.IsTimeout(err) {
					why[p] = err.Error()
				} else {
					answers[p], why[p] = readyBefore[p], "timed out"
				}
				continue
			}
			answers[p] = resp.StatusCode == http.StatusOK
			why[p] = resp.Status
			resp.Body.Close()
		}
		b.mu.Lock()
		for _, be := range b.backends {
			was := be.ready
			ok, answered := answers[be.probe]
			switch {
			case answered:
				be.ready, be.unanswered = ok, 0
			case be.unanswered+1 >= failureThreshold:
				be.ready = false
			default:
				be.unanswered++
			}
			if be.ready != was {
				b.changes = append(b.changes, fmt.Sprintf("%v %s ready=%v (%s)", time.Since(b.start).Round(time.Millisecond), be.name, be.ready, why[be.probe]))
			}
		}
		b.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(readyPoll):
		}
	}
}

// readinessChanges lists when each backend became ready or not, and why.
func (b *readyBalancer) readinessChanges() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.changes)
}

// sees reports whether r's backend is ready at the last poll, as an
// EndpointSlice would list it: what the Deployment's rollout waits for
// before it stops the next replica, so that the two never disagree.
func (b *readyBalancer) sees(r *replica) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, be := range b.backends {
		if be.addr == r.addr && be.ready && be.deleted.IsZero() {
			return nil
		}
	}
	return fmt.Errorf("the balancer does not list %s as ready", r.name)
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
		if be.ready && (be.deleted.IsZero() || time.Since(be.deleted) < endpointLag) {
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
