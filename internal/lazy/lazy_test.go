package lazy

import (
	"errors"
	"slices"
	"sync"
	"testing"
)

// TestValueIsComputedOnceByBuildOrFirstUse registers two values, requires
// both pending, uses one, and requires Build to compute only the other,
// each exactly once.
func TestValueIsComputedOnceByBuildOrFirstUse(t *testing.T) {
	calls := map[string]int{}
	var mu sync.Mutex
	count := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		calls[name]++
	}
	used := Value("test: used", func() int { count("used"); return 7 })
	built := Values("test: built", func() (string, error) { count("built"); return "", errors.New("its own error") })
	for _, name := range []string{"test: used", "test: built"} {
		if !slices.Contains(Pending(), name) {
			t.Fatalf("%q not pending before use: %v", name, Pending())
		}
	}
	if got := used(); got != 7 {
		t.Fatalf("used() = %d", got)
	}
	if slices.Contains(Pending(), "test: used") {
		t.Error("a value used is still pending")
	}
	Build()
	if p := Pending(); len(p) != 0 {
		t.Errorf("pending after Build: %v", p)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			used()
			if _, err := built(); err == nil || err.Error() != "its own error" {
				t.Errorf("built() error = %v, want its own", err)
			}
		})
	}
	wg.Wait()
	if calls["used"] != 1 || calls["built"] != 1 {
		t.Errorf("computed %v, want each once", calls)
	}
}
