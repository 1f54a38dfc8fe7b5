package cachetrim

import (
	"slices"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Bounds of the intern table: at most internEntries values of each kind,
// each of at most internMaxBytes of keys and values, so that what the
// table alone keeps alive is a few MiB whatever tenants write into labels
// and owners. A larger value is kept by its Pod alone, as before.
const (
	internEntries  = 1024
	internMaxBytes = 1024
)

// interned is the controller cache's table of label maps, owner
// references and namespaces that kept Pods share. The replicas of one
// workload carry the same labels (a ReplicaSet's app and
// pod-template-hash, a Job's job-name and controller-uid), the same owner
// and namespace, which the cache otherwise holds once a Pod: a map of two
// labels takes about 400 bytes, an owner reference about 200.
var interned = newInternTable()

// internTable maps each value's encoding to the first value seen with it.
// When a kind's map is full it starts afresh: Pods already kept keep what
// they share, later ones share anew. The cache never writes to the
// objects it holds (the controller reads deep copies), so one map or
// slice may serve many Pods.
type internTable struct {
	mu     sync.Mutex
	buf    []byte
	keys   []string
	labels map[string]map[string]string
	owners map[string][]metav1.OwnerReference
	names  map[string]string
}

func newInternTable() *internTable {
	return &internTable{labels: map[string]map[string]string{}, owners: map[string][]metav1.OwnerReference{}, names: map[string]string{}}
}

// pod replaces p's labels, owner references and namespace by equal ones
// already kept, or keeps p's for the Pods that follow.
func (t *internTable) pod(p *corev1.Pod) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p.Labels) > 0 && t.encodeLabels(p.Labels) {
		p.Labels = share(t.labels, t.buf, p.Labels)
	}
	if len(p.OwnerReferences) > 0 && t.encodeOwners(p.OwnerReferences) {
		p.OwnerReferences = share(t.owners, t.buf, p.OwnerReferences)
	}
	if n, ok := t.names[p.Namespace]; ok {
		p.Namespace = n
	} else {
		if len(t.names) >= internEntries {
			clear(t.names)
		}
		t.names[p.Namespace] = p.Namespace
	}
}

// share returns the value kept under key, keeping v under it if none is.
func share[V any](m map[string]V, key []byte, v V) V {
	if kept, ok := m[string(key)]; ok {
		return kept
	}
	if len(m) >= internEntries {
		clear(m)
	}
	m[string(key)] = v
	return v
}

// encodeLabels writes l's entries, sorted, into t.buf, each string
// prefixed by its length; false if that exceeds internMaxBytes.
func (t *internTable) encodeLabels(l map[string]string) bool {
	t.keys = t.keys[:0]
	size := 0
	for k, v := range l {
		t.keys = append(t.keys, k)
		size += len(k) + len(v)
	}
	if size > internMaxBytes {
		return false
	}
	slices.Sort(t.keys)
	t.buf = t.buf[:0]
	for _, k := range t.keys {
		t.appendString(k)
		t.appendString(l[k])
	}
	return true
}

// encodeOwners writes every field of refs into t.buf; false if their
// strings exceed internMaxBytes.
func (t *internTable) encodeOwners(refs []metav1.OwnerReference) bool {
	size := 0
	for _, r := range refs {
		size += len(r.APIVersion) + len(r.Kind) + len(r.Name) + len(r.UID)
	}
	if size > internMaxBytes {
		return false
	}
	t.buf = t.buf[:0]
	for _, r := range refs {
		t.appendString(r.APIVersion)
		t.appendString(r.Kind)
		t.appendString(r.Name)
		t.appendString(string(r.UID))
		t.buf = append(t.buf, flag(r.Controller), flag(r.BlockOwnerDeletion))
	}
	return true
}

func (t *internTable) appendString(s string) {
	t.buf = strconv.AppendInt(t.buf, int64(len(s)), 10)
	t.buf = append(t.buf, ':')
	t.buf = append(t.buf, s...)
}

// flag encodes an optional bool: unset, false or true.
func flag(b *bool) byte {
	switch {
	case b == nil:
		return 'u'
	case *b:
		return 't'
	}
	return 'f'
}
