package engines

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Engine is everything the controller knows about one cache engine: the
// runtime kind it serves, the Helm release it installs for a runtime, the
// workloads that release runs, the FUSE volume it mounts, where its cache
// figures are read, the data operations it runs and how its Datasets'
// usage is learnt. Every method but Values is a pure function of the
// runtime (and, for a resolved engine, of what Resolve read). What only
// some engines do is an optional interface below.
type Engine interface {
	// Type is the runtime type recorded in a Dataset's status.runtimes.
	Type() string
	// NewObject returns an empty object of the runtime kind the engine
	// serves (the kind its reconciler watches).
	NewObject() datav1alpha1.RuntimeObject
	// Chart is the engine's Helm chart (its files, rooted at Chart.yaml).
	Chart() fs.FS
	// Values are the chart values for the runtime serving the Dataset.
	// Secret values never appear in them, only Secret references.
	Values(ds *datav1alpha1.Dataset, rt client.Object) (map[string]any, error)
	// Components are the workloads the release runs for rt, which the
	// reconciler waits for and reports.
	Components(rt client.Object) Components
	// Volume is the FUSE mount of rt's Dataset, recorded on its PV.
	Volume(rt client.Object) FuseVolume
	// CacheMetrics says where rt's cache figures are read; false when the
	// engine reports none.
	CacheMetrics(rt client.Object) (MetricsSource, bool)
	// Operations renders the data operations the engine runs (an
	// engine that runs none answers every kind ReasonUnsupported).
	Operations
	// Metadata says how rt's Dataset's usage is learnt (an engine that
	// learns none answers MetadataSource{}, sync off).
	Metadata
}

// The optional interfaces: what only some engines do. The reconcilers ask
// an engine for one with a type assertion; docs/engines.md lists them.

// Resolver is implemented by engines whose release depends on other objects
// (the ThinRuntimeProfile a ThinRuntime names). The reconciler calls Resolve
// once per reconcile and, for the rest of that reconcile, uses the Engine it
// returns in place of this one: the objects are read once, and every
// decision of one reconcile sees the same version of them.
type Resolver interface {
	Resolve(ctx context.Context, r client.Reader, rt client.Object) (Engine, error)
}

// MountChecker is implemented by engines that cannot apply some changes of
// a bound Dataset's mounts to its running cache. CheckMountEdit compares
// applied (the effective mounts the runtime serves: its status.mounts, or
// EffectiveMounts of the Dataset as it was) with ds's, and returns each
// change it refuses, naming the field of ds (or of its earlier version,
// for a field removed) and why. The webhook denies them (rule
// mount-edit); the engine's reconcile refuses them (InvalidSpec), so that
// a change admitted while the webhook was down fails the runtime instead
// of being applied in part.
type MountChecker interface {
	CheckMountEdit(applied []datav1alpha1.Mount, ds *datav1alpha1.Dataset) []Finding
}

// CacheFreer is implemented by engines that free a runtime's cache
// through the engine itself while it still runs (Alluxio: alluxio fs
// free), before its release is uninstalled. Every engine's deleted runtime
// also gets its host cache directories removed on the nodes that held
// them (engines/workloads/cachecleanup); freeing is a step ahead of that.
type CacheFreer interface {
	// FreeCache is the pod of the Job that frees rt's cache: argv lists,
	// no shell; the cleanup adds its restart policy and deadline.
	FreeCache(rt client.Object) (corev1.PodSpec, error)
}

// Watcher is implemented by engines whose runtimes wait on other objects,
// or that leave some runtimes of their kind to another reconciler (Thin:
// a ThinRuntime waits for the ThinRuntimeProfile it names; one without a
// profile serves a reference dataset, reconciled by controller/reference).
type Watcher interface {
	// Watches are the other objects whose changes wake the runtimes,
	// read through r.
	Watches(r client.Reader) []Watch
	// Serves says whether the engine's reconciler serves rt; a runtime it
	// does not serve is left alone.
	Serves(rt datav1alpha1.RuntimeObject) bool
}

// HostPorter is implemented by engines whose components may run on the
// host network (Alluxio, Jindo), where two runtimes' pods on one node
// cannot listen on the same port. Before a reconcile renders the release,
// the controller gives each port HostPorts names a number (a hand-set one
// as it is, the others from its host port range, never one another
// runtime holds) and records them in the runtime's status.hostPorts,
// from which Values renders them (HostPortOf).
type HostPorter interface {
	// HostPorts are the ports rt's host-network components listen on, by
	// "<component>.<port name>": the port the spec sets, or 0 for the
	// controller to allocate. Components on the pod network have none.
	HostPorts(rt client.Object) (map[string]int, error)
}

// Gateway is implemented by engines that may run a REST gateway for a
// runtime (Alluxio's spec.apiGateway): the controller records where it
// listens in the runtime's status.apiGateway.endpoint once the release is
// installed, and clears it when the gateway goes.
type Gateway interface {
	// APIGateway is the gateway's "host:port", ok false when rt runs none.
	APIGateway(rt client.Object) (endpoint string, ok bool)
}

// Watch wakes the runtimes Map names when an Object of its kind changes.
type Watch struct {
	Object client.Object
	Map    func(ctx context.Context, obj client.Object) []client.ObjectKey
}

// Components are the workloads an engine's chart runs for a runtime:
// StatefulSets named "<name>-master" and "<name>-worker" (the FUSE
// DaemonSet is always "<name>-fuse").
type Components struct {
	Master bool
	Worker bool
	// MountJob: the release runs a Job, MountJobName(name,
	// MountsDigest(ds)), that applies the Dataset's mounts to the running
	// cache; a change of the mounts is applied once it has succeeded.
	MountJob bool
}

// FuseVolume is how the Dataset's PV reaches the FUSE mount on a node.
type FuseVolume struct {
	// Path is the host directory of the Dataset's FUSE mount (the PV's
	// fluid_path).
	Path string
	// MountType is the FUSE file-system type the CSI plugin checks for in
	// the node's mount table (the PV's mount_type), e.g. fuse.juicefs.
	MountType string
	// CleanPolicy says when the CSI plugin may stop a node's FUSE pod:
	// spec.fuse.cleanPolicy, else Fluid's default OnRuntimeDeleted
	// (CleanPolicyOf).
	CleanPolicy datav1alpha1.FuseCleanPolicy
}

// MetricsSource is where a runtime's cache figures are read: the pods
// Selector selects each serve a metrics page over HTTP at their container
// port PortName, at one of Paths.
type MetricsSource struct {
	// Selector are the labels of the pods that report cache figures.
	Selector map[string]string
	// PortName is the name of the container port serving the page.
	PortName string
	// Paths are where the page may be, tried in turn (at a pod that
	// answers) until one parses: engines move it between versions.
	Paths []string
	// ClusterWide: each pod reports the whole cluster's figures (a master)
	// rather than its own node's, so the reconciler takes the largest
	// figures any pod reports (a standby master reports none) instead of
	// the mean.
	ClusterWide bool
	// Parse reads one pod's metrics page.
	Parse func(io.Reader) (CacheCounters, error)
}

// CleanPolicyOf is rt's spec.fuse.cleanPolicy, or Fluid's default
// OnRuntimeDeleted when unset (or rt is not a runtime kind).
func CleanPolicyOf(rt client.Object) datav1alpha1.FuseCleanPolicy {
	var p datav1alpha1.FuseCleanPolicy
	if r, ok := rt.(datav1alpha1.RuntimeObject); ok {
		p = r.GetFuseCleanPolicy()
	}
	return OrDefaultCleanPolicy(p)
}

// OrDefaultCleanPolicy is p, or Fluid's default OnRuntimeDeleted when p is
// empty.
func OrDefaultCleanPolicy(p datav1alpha1.FuseCleanPolicy) datav1alpha1.FuseCleanPolicy {
	if p == "" {
		return datav1alpha1.OnRuntimeDeletedCleanPolicy
	}
	return p
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
