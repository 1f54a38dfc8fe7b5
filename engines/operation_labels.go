package engines

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Labels every operation chart puts on its workload and on the workload's
// pods, beside app.kubernetes.io/instance=<release name>: the controller
// finds an operation's pods by them (OperationLabels).
const (
	// LabelOperationKind is the operation's kind, e.g. DataLoad.
	LabelOperationKind = "dataop.sluice.io/kind"
	// LabelOperationName is the operation's name, or its UID when the name
	// is longer than a label value may be (63 characters).
	LabelOperationName = "dataop.sluice.io/name"
	// LabelManagedBy is app.kubernetes.io/managed-by, "sluice" on every
	// object Sluice renders.
	LabelManagedBy = "app.kubernetes.io/managed-by"
)

// maxLabelValue is the longest label value Kubernetes accepts.
const maxLabelValue = 63

// OperationLabels are the labels of op's workload and pods: its kind, its
// name (or UID, for a name too long for a label value) and
// managed-by=sluice. The controller selects op's pods with them.
func OperationLabels(op datav1alpha1.OperationObject) map[string]string {
	name := op.GetName()
	if len(name) > maxLabelValue {
		name = string(op.GetUID())
	}
	return map[string]string{LabelOperationKind: string(op.GetOperationKind()), LabelOperationName: name, LabelManagedBy: "sluice"}
}
