package bench_test

import (
	"slices"
	"testing"
	"time"
)

// reportPercentiles reports the p50 and p99 of the samples, in microseconds.
func reportPercentiles(b *testing.B, samples []time.Duration) {
	b.Helper()
	if len(samples) == 0 {
		return
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	at := func(p float64) float64 {
		i := int(p * float64(len(s)-1))
		return float64(s[i].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}
