package hostports

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	ctx  = context.Background()
	rtA  = Holder{"AlluxioRuntime", "a", "data"}
	rtB  = Holder{"JindoRuntime", "b", "data"}
	rtC  = Holder{"AlluxioRuntime", "c", "data"}
	none = func(context.Context) (map[Holder]map[string]int32, error) { return nil, nil }
)

func assign(t *testing.T, a *Allocator, h Holder, want map[string]int) map[string]int32 {
	t.Helper()
	got, err := a.Assign(ctx, h, want)
	if err != nil {
		t.Fatalf("Assign(%s): %v", h, err)
	}
	return got
}

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Range
		bad  bool
	}{
		{in: "20000-25000", want: Range{20000, 25000}},
		{in: " 1 - 65535 ", want: Range{1, 65535}},
		{in: "7-7", want: Range{7, 7}},
		{in: "20000", bad: true},
		{in: "25000-20000", bad: true},
		{in: "0-10", bad: true},
		{in: "1-65536", bad: true},
		{in: "a-b", bad: true},
	} {
		got, err := ParseRange(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseRange(%q) = %v, %v; want %v (error: %t)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// TestRuntimesGetDisjointPortsOfTheRange: each runtime gets ports of the
// range no other runtime holds, and the same ones each time it asks again.
func TestRuntimesGetDisjointPortsOfTheRange(t *testing.T) {
	a := New(Range{100, 109}, none)
	want := map[string]int{"master.rpc": 0, "master.web": 0, "worker.rpc": 0}
	pa, pb := assign(t, a, rtA, want), assign(t, a, rtB, want)
	seen := map[int32]Holder{}
	for h, ports := range map[Holder]map[string]int32{rtA: pa, rtB: pb} {
		if len(ports) != 3 {
			t.Errorf("%s got %v, want 3 ports", h, ports)
		}
		for _, p := range ports {
			if p < 100 || p > 109 {
				t.Errorf("%s got port %d, outside 100-109", h, p)
			}
			if other, dup := seen[p]; dup {
				t.Errorf("port %d given to %s and %s", p, other, h)
			}
			seen[p] = h
		}
	}
	if again := assign(t, a, rtA, want); !cmp.Equal(again, pa) {
		t.Errorf("second assignment of %s: %v, first %v", rtA, again, pa)
	}
}

// TestHandSetPortsAreHeldAsTheyAre: a port the spec sets is kept even
// outside the range and although another runtime holds it, and is never
// handed to another runtime.
func TestHandSetPortsAreHeldAsTheyAre(t *testing.T) {
	a := New(Range{100, 102}, none)
	pa := assign(t, a, rtA, map[string]int{"master.rpc": 101, "master.web": 19999})
	if !cmp.Equal(pa, map[string]int32{"master.rpc": 101, "master.web": 19999}) {
		t.Fatalf("hand-set ports became %v", pa)
	}
	pb := assign(t, a, rtB, map[string]int{"master.rpc": 0, "master.web": 0})
	if !cmp.Equal(pb, map[string]int32{"master.rpc": 100, "master.web": 102}) {
		t.Errorf("got %v, want the two ports of the range rtA does not hold", pb)
	}
	// The user's choice: a port another runtime holds may be set by hand.
	if pc := assign(t, a, rtC, map[string]int{"worker.rpc": 102}); pc["worker.rpc"] != 102 {
		t.Errorf("hand-set port shared with another runtime became %v", pc)
	}
	// Unset again, the shared port is replaced by a free one: there is none.
	var ex *ExhaustedError
	if _, err := a.Assign(ctx, rtC, map[string]int{"worker.rpc": 0}); !errors.As(err, &ex) || ex.Want != 1 || ex.Free != 0 {
		t.Errorf("a shared port unset with no free port left: %v, want ExhaustedError (want 1, free 0)", err)
	}
}

// TestReleaseFreesPortsForOthers: a released runtime's ports (and ports
// under names no longer wanted) go back to the range, handed out again
// after the rest of the range (next fit).
func TestReleaseFreesPortsForOthers(t *testing.T) {
	a := New(Range{100, 103}, none)
	pa := assign(t, a, rtA, map[string]int{"master.rpc": 0, "worker.rpc": 0})
	if !cmp.Equal(pa, map[string]int32{"master.rpc": 100, "worker.rpc": 101}) {
		t.Fatalf("got %v", pa)
	}
	// worker.rpc is not wanted any more (the workers left the host network).
	if pa = assign(t, a, rtA, map[string]int{"master.rpc": 0}); !cmp.Equal(pa, map[string]int32{"master.rpc": 100}) {
		t.Fatalf("got %v after dropping worker.rpc", pa)
	}
	pb := assign(t, a, rtB, map[string]int{"x": 0, "y": 0})
	if !cmp.Equal(pb, map[string]int32{"x": 102, "y": 103}) {
		t.Errorf("got %v, want the ports after the last handed out before the one just released", pb)
	}
	a.Release(rtA)
	if held, _ := a.Held(ctx, rtA); held != nil {
		t.Errorf("released runtime still holds %v", held)
	}
	pc := assign(t, a, rtC, map[string]int{"x": 0, "y": 0})
	if !cmp.Equal(pc, map[string]int32{"x": 100, "y": 101}) {
		t.Errorf("got %v, want the released ports", pc)
	}
}

// TestExhaustedRangeChangesNothing: without enough free ports an
// assignment fails whole, keeping what the runtime held.
func TestExhaustedRangeChangesNothing(t *testing.T) {
	a := New(Range{100, 102}, none)
	assign(t, a, rtA, map[string]int{"a": 0, "b": 0})
	pb := assign(t, a, rtB, map[string]int{"a": 0})
	_, err := a.Assign(ctx, rtB, map[string]int{"a": 0, "b": 0, "c": 0})
	var ex *ExhaustedError
	if !errors.As(err, &ex) || ex.Want != 2 || ex.Free != 0 {
		t.Fatalf("got %v, want ExhaustedError (want 2, free 0)", err)
	}
	if held, _ := a.Held(ctx, rtB); !cmp.Equal(held, pb) {
		t.Errorf("after a failed assignment rtB holds %v, want %v", held, pb)
	}
}

// TestLoadedRecordsAreHeld: the runtimes' recorded ports are read before
// the first assignment (a restart, a new leader): they stay their
// runtimes', and no other runtime gets them. A port two records claim is
// replaced at the next assignment that does not set it by hand.
func TestLoadedRecordsAreHeld(t *testing.T) {
	calls := 0
	load := func(context.Context) (map[Holder]map[string]int32, error) {
		if calls++; calls == 1 {
			return nil, errors.New("API down")
		}
		return map[Holder]map[string]int32{rtA: {"master.rpc": 100, "worker.rpc": 102}, rtB: {"master.rpc": 102}}, nil
	}
	a := New(Range{100, 104}, load)
	if _, err := a.Assign(ctx, rtC, map[string]int{"x": 0}); err == nil {
		t.Fatal("an assignment before the records could be read succeeded")
	}
	if pa := assign(t, a, rtA, map[string]int{"master.rpc": 0}); !cmp.Equal(pa, map[string]int32{"master.rpc": 100}) {
		t.Errorf("rtA got %v, want its recorded master.rpc 100", pa)
	}
	pc := assign(t, a, rtC, map[string]int{"x": 0, "y": 0})
	if !cmp.Equal(pc, map[string]int32{"x": 101, "y": 103}) {
		t.Errorf("rtC got %v, want the ports no record holds", pc)
	}
	if pb := assign(t, a, rtB, map[string]int{"master.rpc": 0}); !cmp.Equal(pb, map[string]int32{"master.rpc": 102}) {
		t.Errorf("rtB got %v, want its recorded 102 (rtA released it)", pb)
	}
	if calls != 2 {
		t.Errorf("records read %d times, want twice (once failing)", calls)
	}
}

// TestConcurrentAssignmentsNeverShareAPort runs many runtimes' assignments
// and releases at once (run with -race): no port ends up held twice.
func TestConcurrentAssignmentsNeverShareAPort(t *testing.T) {
	a := New(Range{20000, 20999}, none)
	var wg sync.WaitGroup
	const runtimes = 64
	for i := range runtimes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := Holder{"JindoRuntime", fmt.Sprintf("ns%d", i), "data"}
			for round := range 20 {
				want := map[string]int{"master.rpc": 0, "worker.rpc": 0}
				if round%3 == 0 {
					want["master.raft"] = 0
				}
				if _, err := a.Assign(ctx, h, want); err != nil {
					t.Error(err)
					return
				}
				if i%4 == 0 && round%5 == 0 {
					a.Release(h)
				}
			}
		}()
	}
	wg.Wait()
	seen := map[int32]Holder{}
	for i := range runtimes {
		h := Holder{"JindoRuntime", fmt.Sprintf("ns%d", i), "data"}
		held, err := a.Held(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if len(held) < 2 {
			t.Errorf("%s holds %v", h, held)
		}
		for _, p := range held {
			if other, dup := seen[p]; dup {
				t.Errorf("port %d held by %s and %s", p, other, h)
			}
			seen[p] = h
		}
	}
}
