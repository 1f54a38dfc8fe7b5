package engines

import (
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// UFSUsage is what a Dataset holds in its under storage: the bytes of its
// files and how many files there are, the Dataset's status.ufsTotal and
// status.fileNum.
type UFSUsage struct {
	Bytes int64
	Files int64
}

// Metadata is the part of Engine that says whether and how the controller
// learns a Dataset's UFSUsage (Fluid's metadata sync). An engine that
// learns none answers MetadataSource{}: the controller leaves ufsTotal and
// fileNum alone.
type Metadata interface {
	// UFSMetadata says whether and how rt's Dataset's usage is learnt.
	UFSMetadata(rt client.Object) MetadataSource
}

// MetadataSource is whether and how a runtime's Dataset's UFSUsage is
// learnt.
type MetadataSource struct {
	// Sync: metadata sync is on for the runtime, as its
	// spec.management.metadataSyncPolicy.autoSync says (or the engine's
	// default, Fluid's, when unset). Off, the controller neither computes
	// nor changes the Dataset's ufsTotal and fileNum.
	Sync bool
	// Pages, when set, are metrics pages of the runtime's pods that report
	// the usage; they are read with the cache states, at every refresh.
	// Without pages the controller counts the usage with a metadata Job
	// that walks the Dataset's mount (engines/workloads/ufsmeta).
	Pages *UsagePages
}

// UsagePages are the metrics pages that report a Dataset's UFSUsage: every
// pod Selector selects serves the whole Dataset's figures at its container
// port PortName, at one of Paths, so the first pod that answers is read.
type UsagePages struct {
	Selector map[string]string
	PortName string
	Paths    []string
	// Parse reads one page. ok is false, without an error, for a page that
	// does not report the usage (a release that exports no such figures).
	Parse func(io.Reader) (u UFSUsage, ok bool, err error)
}

// FormatUFSTotal writes n as Fluid writes a Dataset's status.ufsTotal:
// binary units with two decimals, "512.00B", "1.50KiB", "154.26GiB". The
// cached percentage is computed from it, so it keeps two decimals where
// FormatBytes keeps one.
func FormatUFSTotal(n int64) string {
	v, i := float64(max(n, 0)), 0
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.2f%s", v, units[i])
}
