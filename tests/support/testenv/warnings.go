package testenv

import (
	"strings"
	"sync"
	"testing"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Warnings collects the warnings the API server returns (admission
// warnings among them).
type Warnings struct {
	mu   sync.Mutex
	msgs []string
}

// HandleWarningHeader implements rest.WarningHandler.
func (w *Warnings) HandleWarningHeader(_ int, _ string, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

// String is the warnings so far, one a line.
func (w *Warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.msgs, "\n")
}

// Reset forgets the warnings so far.
func (w *Warnings) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = nil
}

// WarnedClient is a client of cfg whose requests' warnings are collected.
func WarnedClient(t testing.TB, cfg *rest.Config, scheme *k8sruntime.Scheme) (client.Client, *Warnings) {
	t.Helper()
	w := &Warnings{}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = w
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c, w
}
