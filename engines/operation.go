package engines

import (
	"io/fs"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Operations is the part of Engine that runs data operations (DataLoad,
// DataMigrate, DataBackup) against the engine's runtimes. DataProcess does not
// depend on the engine: package engines/workloads/process renders it for every
// one, and an engine asked for a DataProcess answers ReasonUnsupported.
type Operations interface {
	// Operation is the Helm release that runs req.Op. An engine that cannot
	// run req.Op's kind returns an *Error with ReasonUnsupported whose
	// message names the engine and the kind; a spec the engine cannot turn
	// into a release returns one with ReasonInvalidSpec naming the field.
	Operation(req OperationRequest) (OperationRelease, error)
}

// OperationRequest is one data operation to render.
type OperationRequest struct {
	// Op is the operation (a *datav1alpha1.DataLoad, DataMigrate, ...).
	Op datav1alpha1.OperationObject
	// Dataset is the Dataset the operation targets.
	Dataset *datav1alpha1.Dataset
	// Runtime is the runtime serving Dataset (nil for DataProcess).
	Runtime client.Object
	// Affinity, when set, is added to the operation's own spec.affinity:
	// the terms the controller derived from runAfter's affinityStrategy.
	Affinity *corev1.Affinity
	// Release is the operation's Helm release, which names its workloads:
	// engines that address them (the workers of a parallel DataMigrate by
	// their DNS names) read it.
	Release string
}

// OperationRelease is the chart and values that run an operation. The chart
// creates exactly one workload named after the release: a batch/v1 Job, or
// a batch/v1 CronJob when the operation's policy is Cron (besides it, at
// most a ConfigMap "<release>-files" holding the operation's files, and for
// a parallel operation its workers: the StatefulSet "<release>-workers"
// behind the headless Service of that name, whose replicas the controller
// keeps at WorkersWanted while a run executes and at 0 otherwise). A
// CronJob sets concurrencyPolicy Forbid and its jobTemplate spec.suspend
// true: each run starts suspended, and the controller resumes it once the
// operation holds its Dataset's claim (a CronJob that does not gate its runs
// fails the operation). The workload and its pods carry OperationLabels(op)
// and app.kubernetes.io/instance=<release>. Every string of the spec reaches
// the manifests as data (quoted or structured values), never spliced into
// YAML or a shell line.
type OperationRelease struct {
	Chart  fs.FS
	Values map[string]any
}

// ReasonUnsupported: the engine cannot run this kind of operation.
const ReasonUnsupported = "Unsupported"

// Unsupported returns an Error with ReasonUnsupported.
func Unsupported(engine, kind string) error {
	return &Error{Reason: ReasonUnsupported, Err: errUnsupported{engine: engine, kind: kind}}
}

type errUnsupported struct{ engine, kind string }

func (e errUnsupported) Error() string {
	return "the " + e.engine + " engine cannot run a " + e.kind
}
