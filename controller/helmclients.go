package controller

import (
	"sync"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/controller/helm"
)

// helmClients keeps one Helm client per namespace.
type helmClients struct {
	discovery *helm.Discovery
	retryBase time.Duration
	// writer is this process's identity on the release records it writes
	// (helm.Client.Writer).
	writer string
	mu     sync.Mutex
	by     map[string]*helm.Client
}

func (h *helmClients) forNamespace(ns string) (*helm.Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c, ok := h.by[ns]; ok {
		return c, nil
	}
	log := ctrl.Log.WithName("helm").WithValues("namespace", ns)
	c, err := helm.NewClientForConfig(h.discovery, ns, func(format string, args ...any) { log.V(1).Info(format, "args", args) })
	if err != nil {
		return nil, err
	}
	c.RetryBase, c.Writer = h.retryBase, h.writer
	if h.by == nil {
		h.by = map[string]*helm.Client{}
	}
	h.by[ns] = c
	return c, nil
}
