package controller_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// controllerRequests counts the API requests of the controller under test
// (its rest.Config is wrapped in TestMain).
var controllerRequests = &requestCounter{n: map[string]map[string]int{}}

// requestCounter counts requests by namespace and "<verb> <resource>[/<subresource>]",
// e.g. "PATCH juicefsruntimes/status".
type requestCounter struct {
	mu sync.Mutex
	n  map[string]map[string]int
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		if ns, resource, ok := namespacedResource(r.URL.Path); ok {
			verb := r.Method
			if r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true" {
				verb = "WATCH"
			}
			c.mu.Lock()
			if c.n[ns] == nil {
				c.n[ns] = map[string]int{}
			}
			c.n[ns][verb+" "+resource]++
			c.mu.Unlock()
		}
		return rt.RoundTrip(r)
	})
}

// in returns the counts of requests in a namespace.
func (c *requestCounter) in(ns string) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.n[ns] {
		out[k] = v
	}
	return out
}

// namespacedResource parses /api/v1/namespaces/NS/RESOURCE[/NAME[/SUB]] and
// /apis/GROUP/VERSION/namespaces/NS/RESOURCE[/NAME[/SUB]].
func namespacedResource(path string) (ns, resource string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) > 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) > 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return "", "", false
	}
	if len(parts) < 3 || parts[0] != "namespaces" {
		return "", "", false
	}
	ns, resource = parts[1], parts[2]
	if len(parts) > 4 {
		resource += "/" + parts[4]
	}
	return ns, resource, true
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d\n", k, m[k])
	}
	return b.String()
}
