package hostports

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Holder names a runtime: its kind (AlluxioRuntime), namespace and name.
type Holder struct {
	Kind, Namespace, Name string
}

func (h Holder) String() string { return h.Kind + " " + h.Namespace + "/" + h.Name }

// Loader reads what every runtime holds, as recorded in its
// status.hostPorts (from the API server, not a cache that may not have
// caught up).
type Loader func(ctx context.Context) (map[Holder]map[string]int32, error)

// Allocator hands out host ports; it is safe for concurrent use.
type Allocator struct {
	rng  Range
	load Loader

	mu     sync.Mutex
	loaded bool
	// held is what each runtime holds, by port name.
	held map[Holder]map[string]int
	// users counts the names (of every holder) holding each port: a
	// hand-set port may be held by two runtimes.
	users map[int]int
	// next is where the search for free ports starts: the port after the
	// last one handed out (next fit), so that a port just released, whose
	// pods may still be terminating, is not handed out again at once.
	next int
}

// New returns an Allocator of the ports of r that reads what runtimes hold
// with load before its first assignment.
func New(r Range, load Loader) *Allocator {
	return &Allocator{rng: r, load: load, held: map[Holder]map[string]int{}, users: map[int]int{}, next: r.First}
}

// Range is the range the Allocator hands ports out of.
func (a *Allocator) Range() Range { return a.rng }

// ExhaustedError says the range has too few free ports for an assignment.
type ExhaustedError struct {
	Range      Range
	Want, Free int
}

func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("the host port range %s has %d free ports, %d are needed; other runtimes on the host network hold the rest (the controller's --runtime-node-port-range, the chart's controller.hostPortRange, sets the range)",
		e.Range, e.Free, e.Want)
}

// Assign settles h's ports and returns them by name. A name wanted with a
// port (> 0) is hand-set: it is held as it is, although another runtime
// may hold it too (the scheduler then keeps the two runtimes' pods that
// listen on it off each other's nodes: the user's choice). A name wanted
// with 0 keeps the port h holds for it, if that is in the range and no
// other runtime holds it, or else gets a port of the range no runtime
// holds. The ports h held under names not wanted are released. When the
// range has too few free ports, nothing changes and the error is an
// *ExhaustedError.
func (a *Allocator) Assign(ctx context.Context, h Holder, want map[string]int) (map[string]int32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.ensureLoaded(ctx); err != nil {
		return nil, err
	}
	cur := a.held[h]
	own := map[int]int{}
	for _, p := range cur {
		own[p]++
	}
	got := map[string]int{}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		switch p, had := want[name], cur[name]; {
		case p > 0:
			got[name] = p
		case had > 0 && a.inRange(had) && a.users[had] == own[had]:
			got[name] = had
		default:
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		free := a.free(len(missing), own, got)
		if len(free) < len(missing) {
			return nil, &ExhaustedError{Range: a.rng, Want: len(missing), Free: len(free)}
		}
		for i, name := range missing {
			got[name] = free[i]
		}
		a.next = a.after(free[len(free)-1])
	}
	a.set(h, got)
	return a.holds(h), nil
}

// free returns up to n ports of the range that no runtime holds, other
// than h's (own) and the ones it keeps (got), from next on.
func (a *Allocator) free(n int, own map[int]int, got map[string]int) []int {
	kept := map[int]bool{}
	for _, p := range got {
		kept[p] = true
	}
	var out []int
	for i, p := 0, a.next; i < a.rng.Size() && len(out) < n; i, p = i+1, a.after(p) {
		if a.users[p]-own[p] == 0 && !kept[p] {
			out = append(out, p)
		}
	}
	return out
}

// after is the port of the range after p, wrapping around.
func (a *Allocator) after(p int) int {
	if p >= a.rng.Last || p < a.rng.First {
		return a.rng.First
	}
	return p + 1
}

func (a *Allocator) inRange(p int) bool { return p >= a.rng.First && p <= a.rng.Last }

// set replaces what h holds.
func (a *Allocator) set(h Holder, ports map[string]int) {
	for _, p := range a.held[h] {
		if a.users[p]--; a.users[p] <= 0 {
			delete(a.users, p)
		}
	}
	delete(a.held, h)
	if len(ports) == 0 {
		return
	}
	a.held[h] = ports
	for _, p := range ports {
		a.users[p]++
	}
}

// Release frees every port h holds (its runtime is gone).
func (a *Allocator) Release(h Holder) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.set(h, nil)
}

// holds returns what h holds, by name (nil when nothing); the caller
// holds a.mu.
func (a *Allocator) holds(h Holder) map[string]int32 {
	ports := a.held[h]
	if len(ports) == 0 {
		return nil
	}
	out := make(map[string]int32, len(ports))
	for name, p := range ports {
		out[name] = int32(p)
	}
	return out
}

// Held returns what h holds, by name, once the runtimes' records are
// loaded (nil when nothing).
func (a *Allocator) Held(ctx context.Context, h Holder) (map[string]int32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.ensureLoaded(ctx); err != nil {
		return nil, err
	}
	return a.holds(h), nil
}

// ensureLoaded reads what the runtimes hold, once it succeeds.
func (a *Allocator) ensureLoaded(ctx context.Context) error {
	if a.loaded {
		return nil
	}
	records, err := a.load(ctx)
	if err != nil {
		return fmt.Errorf("reading the runtimes' host ports: %w", err)
	}
	for h, rec := range records {
		ports := map[string]int{}
		for name, p := range rec {
			if p > 0 {
				ports[name] = int(p)
			}
		}
		a.set(h, ports)
	}
	a.loaded = true
	return nil
}
