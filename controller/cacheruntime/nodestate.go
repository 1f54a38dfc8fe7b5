package cacheruntime

import (
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// This file is an optimisation, kept because it pays for itself: the
// memory of this controller's own node label writes (its other memories
// are listed in controller/doc.go). Without it,
// patchNode is still correct: a change computed from a cache behind the
// last one is refused and recomputed from a fresh read. Measured on
// tests/scale (500 Datasets on 50 nodes, runs alternated, 2026-12-01):
// without it, 114-146 node label patches refused per run instead of 26-44
// (as many fresh node reads again), and 53.1-69.2 s (mean 59.3, 6 runs)
// to bind all 500 instead of 50.0-61.6 s (mean 55.3, 4 runs) with it
// (the base revision, which also remembered runtime status writes:
// 49.4-55.3 s, mean 52.6, 5 runs): under load, every refusal holds the
// node's lock for two more round trips while other runtimes of the node
// wait.

// trustOwnWrite is how long the labels this controller last wrote on a
// node are preferred to the cache's: long enough for the cache to catch up
// under load, short enough that they are not kept for nodes it leaves alone.
const trustOwnWrite = 10 * time.Second

// nodeStates serialises this controller's label changes per node and
// remembers what its last change left on each node. The informer cache
// lags behind the controller's own writes; a change computed from a cache
// that does not show the previous one yet would be refused (its
// resourceVersion precondition fails) and need a fresh read.
type nodeStates struct {
	mu sync.Mutex
	m  map[string]*nodeState
}

// nodeState is one node's lock and the labels and resourceVersion that the
// last change under it left.
type nodeState struct {
	sync.Mutex
	labels          map[string]string
	resourceVersion string
	at              time.Time
}

// lock returns the node's state, locked.
func (s *nodeStates) lock(name string) *nodeState {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]*nodeState{}
	}
	st, ok := s.m[name]
	if !ok {
		st = &nodeState{}
		s.m[name] = st
	}
	s.mu.Unlock()
	st.Lock()
	return st
}

// recall replaces n's labels and resourceVersion (as cached) with those of
// the last change, if it was recent.
func (st *nodeState) recall(n *corev1.Node) {
	if st.resourceVersion != "" && time.Since(st.at) < trustOwnWrite {
		n.Labels, n.ResourceVersion = maps.Clone(st.labels), st.resourceVersion
	}
}

// remember records n's labels and resourceVersion as the API server
// returned them.
func (st *nodeState) remember(n *corev1.Node) {
	st.labels, st.resourceVersion, st.at = maps.Clone(n.Labels), n.ResourceVersion, time.Now()
}
