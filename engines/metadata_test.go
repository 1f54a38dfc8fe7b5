package engines

import (
	"math"
	"testing"
)

func TestFormatUFSTotal(t *testing.T) {
	for n, want := range map[int64]string{
		-1: "0.00B", 0: "0.00B", 512: "512.00B", 1024: "1.00KiB", 1536: "1.50KiB",
		154262709011: "143.67GiB", 3 << 40: "3.00TiB", math.MaxInt64: "8.00EiB",
	} {
		if got := FormatUFSTotal(n); got != want {
			t.Errorf("FormatUFSTotal(%d) = %q, want %q", n, got, want)
		}
	}
}
