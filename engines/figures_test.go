package engines

import (
	"math"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0B", 0, true},
		{"1023B", 1023, true},
		{"1.5GiB", 1.5 * (1 << 30), true},
		{"2.71GiB", 2.71 * (1 << 30), true}, // Fluid writes two decimals
		{"10Gi", 10 << 30, true},            // a quantity, as a tieredstore quota
		{" 512MiB ", 512 << 20, true},
		{"8EiB", 8 * (1 << 60), true},
		{"", 0, false},
		{"lots", 0, false},
		{"12%", 0, false},
	} {
		got, ok := ParseBytes(tc.in)
		if ok != tc.ok || math.Abs(got-tc.want) > 1 {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestParseSizeValue: a size's whole bytes, as the runtime reconciler
// reads quotaList entries and status.ufsTotal; not a size is 0.
func TestParseSizeValue(t *testing.T) {
	for s, want := range map[string]int64{"": 0, "10Gi": 10 << 30, "10.0GiB": 10 << 30, "1.5KiB": 1536, "512": 512, "lots": 0} {
		if got, _ := ParseSize(s); got.Value() != want {
			t.Errorf("ParseSize(%q).Value() = %d, want %d", s, got.Value(), want)
		}
	}
}

// TestParseBytesReadsFormatBytes: what FormatBytes writes reads back as at
// most a tenth of its unit less (FormatBytes rounds down to one decimal).
func TestParseBytesReadsFormatBytes(t *testing.T) {
	for _, n := range []int64{0, 1, 1023, 1024, 1536, 3 << 29, 1<<30 - 1, 7 << 40, 123456789012} {
		s := FormatBytes(n)
		got, ok := ParseBytes(s)
		if !ok || got > float64(n) || float64(n)-got > float64(n)/10+1 {
			t.Errorf("ParseBytes(FormatBytes(%d) = %q) = %v, %v", n, s, got, ok)
		}
	}
}

func TestParsePercent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"85.0%", 0.85, true},
		{"0.0%", 0, true},
		{"100.0%", 1, true},
		{percent(1, 3), 0.333, true}, // what CacheStates writes
		{"85", 0, false},
		{"%", 0, false},
		{"", 0, false},
	} {
		got, ok := ParsePercent(tc.in)
		if ok != tc.ok || math.Abs(got-tc.want) > 0.001 {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]float64{"0": 0, "1024": 1024, " 7 ": 7} {
		if got, ok := ParseCount(in); !ok || got != want {
			t.Errorf("ParseCount(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5", "many"} {
		if got, ok := ParseCount(in); ok {
			t.Errorf("ParseCount(%q) = %v, want no count", in, got)
		}
	}
}
