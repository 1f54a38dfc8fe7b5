package backoff

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestTheWaitIsCapped: after many failures of one object the wait stays
// at Max; another object starts again from milliseconds.
func TestTheWaitIsCapped(t *testing.T) {
	rl := RateLimiter()
	item := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "a"}}
	var last time.Duration
	for range 40 {
		last = rl.When(item)
	}
	if last != Max {
		t.Fatalf("after 40 failures the wait is %v, want %v", last, Max)
	}
	if d := rl.When(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "b"}}); d > time.Second {
		t.Fatalf("another object's first wait is %v", d)
	}
	rl.Forget(item)
	if d := rl.When(item); d > time.Second {
		t.Fatalf("after Forget the wait is %v", d)
	}
}
