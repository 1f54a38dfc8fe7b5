package opalock

import (
	"sync"
	"testing"
	"time"
)

// TestDoGoesBeforeQueuedBackgroundWork holds the lock in Background, queues
// more Background calls and then one Do, and requires that Do runs next,
// that every call runs, and that no two ever run at once.
func TestDoGoesBeforeQueuedBackgroundWork(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	var (
		mu      sync.Mutex
		order   []string
		running int
	)
	run := func(name string, wait <-chan struct{}) func() error {
		return func() error {
			mu.Lock()
			running++
			if running > 1 {
				t.Errorf("%s runs beside another holder", name)
			}
			order = append(order, name)
			mu.Unlock()
			if wait != nil {
				close(started)
				<-wait
			}
			mu.Lock()
			running--
			mu.Unlock()
			return nil
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = Background(run("first", release)) })
	<-started
	for range 5 {
		wg.Go(func() { _ = Background(run("background", nil)) })
	}
	// Give the five time to queue before the load: a plain mutex then
	// hands the lock to them first (the order this test refuses).
	time.Sleep(20 * time.Millisecond)
	wg.Go(func() { _ = Do(run("load", nil)) })
	waitFor(t, func() bool { return waiters() == 1 })
	close(release)
	wg.Wait()
	if len(order) != 7 || order[0] != "first" || order[1] != "load" {
		t.Fatalf("order = %v, want first, load, then the five background calls", order)
	}
}

func waiters() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}
