package testenv_test

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestFreeAddrIsOutsideTheEphemeralRange: FreeAddr's ports are ones the
// kernel gives no connection or port-0 listener of another process, and
// they can be listened on.
func TestFreeAddrIsOutsideTheEphemeralRange(t *testing.T) {
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skipf("no ephemeral port range to check against: %v", err)
	}
	low, err := strconv.Atoi(strings.Fields(string(raw))[0])
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for range 20 {
		addr := testenv.FreeAddr(t)
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		if port, _ := strconv.Atoi(p); port >= low {
			t.Errorf("FreeAddr gave %s, in the ephemeral range from %d", addr, low)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("listening on FreeAddr's %s: %v", addr, err)
		}
		l.Close()
		seen[addr] = true
	}
	if len(seen) < 15 {
		t.Errorf("20 FreeAddr calls gave %d different addresses: not random", len(seen))
	}
}
