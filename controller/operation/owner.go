package operation

import (
	"context"
	"fmt"
	"io/fs"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/controller/helm"
)

// An operation's release is named after the operation and its kind
// (release.go), and a name says nothing of whose a release is: runtime
// logs-backup's release and DataBackup logs's have one name. So every
// Helm action of an operation says whose release it acts on
// (helm.Owner): an operation chart's, stamped with the operation's UID
// when installed. A release that is not (a runtime's, another
// operation's) is reported as a conflict on the operation
// (ReasonReleaseConflict) and never installed over, followed, settled or
// uninstalled.

// releaseCharts are the charts of operation releases: charts/dataop,
// which the engines' operations and DataProcess render, and
// charts/fakeop, the test engine's. A release of another chart with an
// operation's name is not the operation's, even one a Sluice before
// owner stamps wrote; an engine rendering another chart fails its
// operations (install).
var releaseCharts = []fs.FS{charts.DataOp, charts.FakeOp}

// releaseOwner is the owner of op's release: op, by its UID, through an
// operation chart.
func (r *Reconciler) releaseOwner(op datav1alpha1.OperationObject) (helm.Owner, error) {
	o := helm.Owner{ID: string(op.GetUID())}
	for _, fsys := range releaseCharts {
		c, err := r.charts.Load(fsys)
		if err != nil {
			return helm.Owner{}, fmt.Errorf("loading an operation chart: %w", err)
		}
		o.Charts = append(o.Charts, c.Metadata.Name)
	}
	return o, nil
}

// conflict is the message of ReasonReleaseConflict.
func conflict(op datav1alpha1.OperationObject, release, why string) string {
	return fmt.Sprintf("a Helm release %s exists in namespace %s that is not this operation's (%s); Sluice neither runs the operation through it nor uninstalls it: "+
		"rename the operation, or remove that release if it is nobody's", release, op.GetNamespace(), why)
}

// uninstall removes op's release, if it is op's; someone else's of that
// name is left, and foreign says so.
func (r *Reconciler) uninstall(op datav1alpha1.OperationObject, release string) (foreign bool, _ error) {
	hc, err := r.Helm(op.GetNamespace())
	if err != nil {
		return false, err
	}
	owner, err := r.releaseOwner(op)
	if err != nil {
		return false, err
	}
	return hc.UninstallOwned(release, owner)
}

// uninstallOrReport uninstalls op's release; someone else's of that name
// is left with a Warning event on op (action names what asked for the
// uninstall).
func (r *Reconciler) uninstallOrReport(_ context.Context, op datav1alpha1.OperationObject, release, action string) error {
	foreign, err := r.uninstall(op, release)
	if err == nil && foreign {
		r.event(op, corev1.EventTypeWarning, ReasonReleaseConflict, action, "%s", conflict(op, release, "another chart, or another object's")+"; left in place")
	}
	return err
}
