package faults_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Fault kinds the injector counts.
const (
	tooMany    = "429 with Retry-After"
	internal   = "500"
	resetFirst = "connection reset before the request"
	resetAfter = "connection reset after the API server acted"
	slowWatch  = "slow watch start"
	cutWatch   = "watch cut mid-stream"
)

var faultKinds = []string{tooMany, internal, resetFirst, resetAfter, slowWatch, cutWatch}

// injector is a client-go transport wrapper that, while on, fails a share
// of the requests through it the ways an API server, a load balancer or a
// network does: of the requests that are not watches, 4% get 429 with
// Retry-After (which client-go retries), 1.5% 500, 1% lose the connection
// before and 1% after the API server served them; of the watches, 30%
// start up to a second late and half are cut after 0.5–3 s. When it is
// turned on (start), it fails over as an API server restart or a load
// balancer's does: every watch open until then is cut after 0.5–3 s, and
// every watch started in the failover window after it starts late.
type injector struct {
	// scale multiplies the shares of failed requests that are not
	// watches (1: the shares above).
	scale   float64
	on      atomic.Bool
	started atomic.Int64 // when start turned it on, in Unix nanoseconds

	openMu sync.Mutex
	open   []*watchBody // watches started while off, cut by start
	mu     sync.Mutex
	rng    *rand.Rand
	counts sync.Map // kind -> *atomic.Int64
}

func newInjector(seed uint64, scale float64) *injector {
	return &injector{scale: scale, rng: rand.New(rand.NewPCG(seed, seed))}
}

// failover is how long after start every new watch starts late.
const failover = 5 * time.Second

// start turns the injector on, cutting the watches opened while it was
// off (see injector).
func (in *injector) start() {
	in.started.Store(time.Now().UnixNano())
	in.on.Store(true)
	in.openMu.Lock()
	open := in.open
	in.open = nil
	in.openMu.Unlock()
	for _, b := range open {
		in.cutLater(b)
	}
}

// watchBody is a watch's response body that knows whether it was closed.
type watchBody struct {
	io.ReadCloser
	closed atomic.Bool
}

func (b *watchBody) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}

// cutLater closes b after 0.5–3 s, counting a cut watch unless it ended
// before.
func (in *injector) cutLater(b *watchBody) {
	time.AfterFunc(time.Duration((0.5+2.5*in.float())*float64(time.Second)), func() {
		if !b.closed.Load() {
			in.count(cutWatch)
			_ = b.Close()
		}
	})
}

func (in *injector) float() float64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.rng.Float64()
}

func (in *injector) count(kind string) {
	c, _ := in.counts.LoadOrStore(kind, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
}

// counted is how many faults of kind were injected.
func (in *injector) counted(kind string) int64 {
	if c, ok := in.counts.Load(kind); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (in *injector) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		isWatch := req.URL.Query().Get("watch") == "true"
		if !in.on.Load() {
			resp, err := next.RoundTrip(req)
			if err == nil && isWatch {
				b := &watchBody{ReadCloser: resp.Body}
				resp.Body = b
				in.openMu.Lock()
				in.open = append(in.open, b)
				in.openMu.Unlock()
			}
			return resp, err
		}
		if isWatch {
			return in.watch(next, req)
		}
		switch p := in.float() / in.scale; {
		case p < 0.04:
			in.count(tooMany)
			return status(req, http.StatusTooManyRequests, "TooManyRequests", "1"), nil
		case p < 0.055:
			in.count(internal)
			return status(req, http.StatusInternalServerError, "InternalError", ""), nil
		case p < 0.065:
			in.count(resetFirst)
			return nil, fmt.Errorf("injected: %w", syscall.ECONNRESET)
		case p < 0.075:
			resp, err := next.RoundTrip(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
			in.count(resetAfter)
			return nil, fmt.Errorf("injected after the request was served: %w", syscall.ECONNRESET)
		}
		return next.RoundTrip(req)
	})
}

// watch delays a watch's start, or cuts its stream after a while, which
// the reflector answers with a new watch or a relist.
func (in *injector) watch(next http.RoundTripper, req *http.Request) (*http.Response, error) {
	if in.float() < 0.3 || time.Since(time.Unix(0, in.started.Load())) < failover {
		in.count(slowWatch)
		time.Sleep(time.Duration(in.float() * float64(time.Second)))
	}
	resp, err := next.RoundTrip(req)
	if err != nil || in.float() >= 0.5 {
		return resp, err
	}
	b := &watchBody{ReadCloser: resp.Body}
	resp.Body = b
	in.cutLater(b)
	return resp, nil
}

// status is an API server's Status response.
func status(req *http.Request, code int, reason, retryAfter string) *http.Response {
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected %d","reason":%q,"code":%d}`, code, reason, code)
	h := http.Header{"Content-Type": []string{"application/json"}}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), Header: h, Request: req,
		Body: io.NopCloser(bytes.NewReader([]byte(body))), ContentLength: int64(len(body)), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
}

// report lists the injected faults, one "kind: n" each.
func (in *injector) report() string {
	var b strings.Builder
	for _, k := range faultKinds {
		fmt.Fprintf(&b, "%s: %d; ", k, in.counted(k))
	}
	return b.String()
}
