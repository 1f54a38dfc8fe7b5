package engines

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Engine turns a runtime into a Helm release.
type Engine interface {
	// Type is the runtime type recorded in a Dataset's status.runtimes.
	Type() string
	// Chart is the engine's Helm chart (its files, rooted at Chart.yaml).
	Chart() fs.FS
	// Values are the chart values for the runtime serving the Dataset.
	// Secret values never appear in them, only Secret references.
	Values(ds *datav1alpha1.Dataset, rt client.Object) (map[string]any, error)
	// Operations are the data-operation kinds the engine runs.
	Operations() []datav1alpha1.OperationKind
}

// Error is an engine failure with the condition reason the reconciler sets.
type Error struct {
	Reason string
	Err    error
}

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Reasons engines report.
const (
	// ReasonInvalidSpec: the runtime or Dataset cannot be turned into a release.
	ReasonInvalidSpec = "InvalidSpec"
)

// Invalid returns an Error with ReasonInvalidSpec.
func Invalid(format string, args ...any) error {
	return &Error{Reason: ReasonInvalidSpec, Err: fmt.Errorf(format, args...)}
}

// CacheReporter is implemented by engines whose pods export cache metrics.
type CacheReporter interface {
	// CachePods are the labels of the runtime's pods that report cache
	// figures; each serves them over HTTP on MetricsPath at its container
	// port named "metrics" (or as MetricsPortNamer says).
	CachePods(rt client.Object) map[string]string
	// MetricsPath is the HTTP path of the metrics page, e.g. "/metrics".
	MetricsPath() string
	// ParseCache reads one pod's metrics page.
	ParseCache(r io.Reader) (CacheCounters, error)
}

// Components are the workloads an engine's chart runs for a runtime, which
// the reconciler waits for and reports: StatefulSets named "<name>-master"
// and "<name>-worker" (the FUSE DaemonSet is always "<name>-fuse").
type Components struct {
	Master bool
	Worker bool
}

// Topology is implemented by engines whose release does not run exactly a
// worker StatefulSet; engines without it run workers only.
type Topology interface {
	Components(rt client.Object) Components
}

// Resolver is implemented by engines whose release depends on other objects
// (the ThinRuntimeProfile a ThinRuntime names). The reconciler calls Resolve
// once per reconcile and, for the rest of that reconcile, uses the Engine it
// returns in place of this one for the runtime's Values, Topology and
// FuseVolume: the objects are read once, and every decision of one
// reconcile sees the same version of them.
type Resolver interface {
	Resolve(ctx context.Context, r client.Reader, rt client.Object) (Engine, error)
}

// FuseVolume is implemented by engines (resolved ones: Thin's) that decide
// the FUSE attributes recorded on the Dataset's PV from more than the
// runtime's kind; the reconciler otherwise records its MountType and the
// runtime's own spec.fuse.cleanPolicy.
type FuseVolume interface {
	// MountType is the FUSE file-system type the CSI plugin checks for.
	MountType(rt client.Object) string
	// FuseCleanPolicy is the runtime's FUSE cleanPolicy, "" for the default.
	FuseCleanPolicy(rt client.Object) datav1alpha1.FuseCleanPolicy
}

// ClusterReporter is implemented by cache reporters whose pods each report
// the whole cluster's figures (a master) rather than their own node's: the
// reconciler takes the largest figures any pod reports (a standby master
// reports none) instead of the mean.
type ClusterReporter interface {
	ClusterWide() bool
}

// MetricsPortNamer is implemented by cache reporters whose pods serve their
// metrics on a port with another purpose and name (JindoCache's master, on
// its RPC port): the reconciler scrapes the container port of this name
// instead of "metrics".
type MetricsPortNamer interface {
	MetricsPortName() string
}

// MetricsPathLister is implemented by cache reporters whose metrics page
// moved between engine versions: the reconciler tries each path in turn, at
// a pod that answers, until a page parses (an empty list means
// MetricsPath alone).
type MetricsPathLister interface {
	MetricsPaths() []string
}
