package helm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"
)

// Memo remembers the releases last found in sync, and with what chart and
// values, so that reconciling an unchanged runtime does not read Helm's
// storage (a List of the namespace's release Secrets) each time. Entries
// expire after TTL, so drift such as a manual rollback is still noticed.
type Memo struct {
	TTL time.Duration

	mu sync.Mutex
	m  map[string]memoEntry
}

type memoEntry struct {
	digest string
	at     time.Time
}

// InSync reports whether the release named key was found in sync with the
// desired chart and values of digest (Desired.Digest) within TTL.
func (m *Memo) InSync(key, digest string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.m[key]
	return ok && e.digest == digest && time.Since(e.at) < m.TTL
}

// Record notes that the release named key is in sync with digest.
func (m *Memo) Record(key, digest string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]memoEntry{}
	}
	m.m[key] = memoEntry{digest: digest, at: time.Now()}
}

// Forget drops what is known about the release named key.
func (m *Memo) Forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, key)
}

// Digest identifies a chart and values (JSON sorts map keys), for Memo.
func (d Desired) Digest() (string, error) {
	h := sha256.New()
	if d.Chart != nil {
		h.Write([]byte(chartDigest(d.Chart)))
	}
	if err := json.NewEncoder(h).Encode(d.Values); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
