package claim

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// operationKinds makes a new object of each data-operation kind.
var operationKinds = map[string]func() client.Object{
	string(datav1alpha1.DataLoadKind):    func() client.Object { return &datav1alpha1.DataLoad{} },
	string(datav1alpha1.DataMigrateKind): func() client.Object { return &datav1alpha1.DataMigrate{} },
	string(datav1alpha1.DataBackupKind):  func() client.Object { return &datav1alpha1.DataBackup{} },
	string(datav1alpha1.DataProcessKind): func() client.Object { return &datav1alpha1.DataProcess{} },
}

// Finished reports whether an operation reached a terminal phase.
func Finished(op client.Object) bool {
	var s *datav1alpha1.OperationStatus
	switch o := op.(type) {
	case *datav1alpha1.DataLoad:
		s = &o.Status
	case *datav1alpha1.DataMigrate:
		s = &o.Status
	case *datav1alpha1.DataBackup:
		s = &o.Status
	case *datav1alpha1.DataProcess:
		s = &o.Status
	default:
		return false
	}
	return s.Phase == datav1alpha1.PhaseComplete || s.Phase == datav1alpha1.PhaseFailed
}

// Target returns the Dataset an operation works on, in the operation's
// namespace unless the operation names another: DataLoad and DataProcess
// spec.dataset, DataBackup spec.dataset (a name), DataMigrate the dataset end
// of spec.to, else of spec.from. ok is false when it names none.
func Target(op client.Object) (namespace, name string, ok bool) {
	ns := op.GetNamespace()
	pick := func(n, s string) (string, string, bool) {
		if n == "" {
			n = ns
		}
		return n, s, s != ""
	}
	switch o := op.(type) {
	case *datav1alpha1.DataLoad:
		return pick(o.Spec.Dataset.Namespace, o.Spec.Dataset.Name)
	case *datav1alpha1.DataProcess:
		return pick(o.Spec.Dataset.Namespace, o.Spec.Dataset.Name)
	case *datav1alpha1.DataBackup:
		return pick("", o.Spec.Dataset)
	case *datav1alpha1.DataMigrate:
		if d := o.Spec.To.DataSet; d != nil {
			return pick(d.Namespace, d.Name)
		}
		if d := o.Spec.From.DataSet; d != nil {
			return pick(d.Namespace, d.Name)
		}
	}
	return "", "", false
}

// NewOperation returns a new object of the named operation kind.
func NewOperation(kind string) (client.Object, bool) {
	f, ok := operationKinds[kind]
	if !ok {
		return nil, false
	}
	return f(), true
}
