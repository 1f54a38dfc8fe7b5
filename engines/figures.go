package engines

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// ParseSize reads a size as a status shows it, "1.5GiB" (FormatBytes,
// Fluid's "2.71GiB", status.ufsTotal), or a Kubernetes quantity ("10Gi",
// a tieredstore quotaList entry); false when s is not a size. It is the
// one parser of sizes: Value() is its bytes rounded up to a whole byte,
// ParseBytes its approximate bytes.
func ParseSize(s string) (resource.Quantity, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return resource.Quantity{}, false
	}
	if n, ok := strings.CutSuffix(s, "B"); ok {
		s = n
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, false
	}
	return q, true
}

// ParseBytes reads a size (ParseSize) into bytes, as a float: a metric's
// value; false when s is not a size.
func ParseBytes(s string) (float64, bool) {
	q, ok := ParseSize(s)
	return q.AsApproximateFloat64(), ok
}

// ParsePercent reads a percentage as CacheStates writes it ("85.0%") into
// a ratio (0.85); false when s is not one.
func ParsePercent(s string) (float64, bool) {
	n, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
	if err != nil {
		return 0, false
	}
	return v / 100, true
}

// ParseCount reads a count as a status shows it (status.fileNum: "1024")
// into a number; false when s is not a non-negative integer.
func ParseCount(s string) (float64, bool) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, false
	}
	return float64(n), true
}
