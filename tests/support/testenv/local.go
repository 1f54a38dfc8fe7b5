package testenv

import (
	"bytes"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FreeAddr is a local address no one listens on (at the time of asking),
// for a server a test starts, often in a child process that binds it a
// moment later. Its port is picked at random below the kernel's ephemeral
// range: the ports of outgoing connections and of listeners on port 0 come
// from that range, so in the moment between the pick and the bind no other
// process can be given this port by the kernel (with a port of the range,
// the many connections of the tests running in parallel sometimes took
// it); only another FreeAddr picking the same port at once could.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	addr, err := PickFreeAddr()
	if err != nil {
		tb.Fatal(err)
	}
	return addr
}

// PickFreeAddr is FreeAddr for code that has no testing.TB (a TestMain).
func PickFreeAddr() (string, error) {
	if low := ephemeralLow(); low > lowestPort+1000 {
		for range 100 {
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(lowestPort+rand.IntN(low-lowestPort))))
			if err != nil {
				continue // in use
			}
			defer l.Close()
			return l.Addr().String(), nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// lowestPort is the lowest port FreeAddr picks: above the ports of
// services a machine commonly runs.
const lowestPort = 10000

// ephemeralLow is the first port of the kernel's ephemeral range, 0 when
// it cannot be read.
func ephemeralLow() int {
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(raw))
	if len(fields) != 2 {
		return 0
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0
	}
	return low
}

// LockedBuffer is a bytes.Buffer safe for a process's or server's log
// writer and a test reading it at once.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
