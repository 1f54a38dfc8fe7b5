package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// OperationObject is what every data-operation kind (DataLoad, DataMigrate,
// DataBackup, DataProcess) shares, so that code outside api/ needs no switch
// over the kinds. A new operation kind implements it here.
// +kubebuilder:object:generate=false
type OperationObject interface {
	metav1.Object
	runtime.Object
	// GetOperationStatus returns the operation's status, to read or change.
	GetOperationStatus() *OperationStatus
	// GetTargetDataset returns the Dataset the operation works on, in the
	// operation's namespace unless the spec names another: DataLoad and
	// DataProcess spec.dataset, DataBackup spec.dataset (a name), DataMigrate
	// the dataset end of spec.to, else of spec.from. ok is false when the
	// spec names none.
	GetTargetDataset() (namespace, name string, ok bool)
	// GetRunAfter returns spec.runAfter: the operation that must complete
	// first, or nil.
	GetRunAfter() *OperationRef
	// GetOperationKind returns the object's kind (DataLoad, ...), which
	// does not depend on its TypeMeta being filled in.
	GetOperationKind() OperationKind
	// GetPolicy returns spec.policy, Once when unset (DataBackup has no
	// policy: always Once).
	GetPolicy() Policy
	// GetSchedule returns spec.schedule, the cron expression of a Cron
	// operation ("" for DataBackup).
	GetSchedule() string
	// GetTTLSecondsAfterFinished returns spec.ttlSecondsAfterFinished.
	GetTTLSecondsAfterFinished() *int32
	// GetPodMetadata returns the labels and annotations the spec adds to
	// the operation's pods, and the field that holds them ("" for a kind
	// without: DataBackup).
	GetPodMetadata() (meta PodMetadata, field string)
	// GetPlacement returns where the spec says the operation's pods may
	// run; nil for a kind whose spec does not place them (DataBackup, and
	// DataProcess, whose processor's pod spec does).
	GetPlacement() *Placement
	// GetLocations returns the locations outside any Dataset that the
	// spec names, each at its field: DataBackup spec.backupPath and
	// DataMigrate's external ends.
	GetLocations() []LocationField
}

var (
	_ OperationObject = &DataLoad{}
	_ OperationObject = &DataMigrate{}
	_ OperationObject = &DataBackup{}
	_ OperationObject = &DataProcess{}
)

// Finished reports whether the operation reached a terminal phase
// (Complete or Failed).
func (s *OperationStatus) Finished() bool {
	return s.Phase == PhaseComplete || s.Phase == PhaseFailed
}

// orOnce is p, or Once when p is empty (the CRD's default, for objects
// not defaulted by an API server).
func orOnce(p Policy) Policy {
	if p == "" {
		return Once
	}
	return p
}

// target names a Dataset in namespace, or in own when namespace is empty.
func target(own, namespace, name string) (string, string, bool) {
	if namespace == "" {
		namespace = own
	}
	return namespace, name, name != ""
}

// GetOperationStatus implements OperationObject.
func (o *DataLoad) GetOperationStatus() *OperationStatus { return &o.Status }

// GetTargetDataset implements OperationObject.
func (o *DataLoad) GetTargetDataset() (string, string, bool) {
	return target(o.Namespace, o.Spec.Dataset.Namespace, o.Spec.Dataset.Name)
}

// GetRunAfter implements OperationObject.
func (o *DataLoad) GetRunAfter() *OperationRef { return o.Spec.RunAfter }

// GetOperationKind implements OperationObject.
func (o *DataLoad) GetOperationKind() OperationKind { return DataLoadKind }

// GetPolicy implements OperationObject.
func (o *DataLoad) GetPolicy() Policy { return orOnce(o.Spec.Policy) }

// GetSchedule implements OperationObject.
func (o *DataLoad) GetSchedule() string { return o.Spec.Schedule }

// GetTTLSecondsAfterFinished implements OperationObject.
func (o *DataLoad) GetTTLSecondsAfterFinished() *int32 { return o.Spec.TTLSecondsAfterFinished }

// GetOperationStatus implements OperationObject.
func (o *DataProcess) GetOperationStatus() *OperationStatus { return &o.Status }

// GetTargetDataset implements OperationObject.
func (o *DataProcess) GetTargetDataset() (string, string, bool) {
	return target(o.Namespace, o.Spec.Dataset.Namespace, o.Spec.Dataset.Name)
}

// GetRunAfter implements OperationObject.
func (o *DataProcess) GetRunAfter() *OperationRef { return o.Spec.RunAfter }

// GetOperationKind implements OperationObject.
func (o *DataProcess) GetOperationKind() OperationKind { return DataProcessKind }

// GetPolicy implements OperationObject.
func (o *DataProcess) GetPolicy() Policy { return orOnce(o.Spec.Policy) }

// GetSchedule implements OperationObject.
func (o *DataProcess) GetSchedule() string { return o.Spec.Schedule }

// GetTTLSecondsAfterFinished implements OperationObject.
func (o *DataProcess) GetTTLSecondsAfterFinished() *int32 { return o.Spec.TTLSecondsAfterFinished }

// GetOperationStatus implements OperationObject.
func (o *DataBackup) GetOperationStatus() *OperationStatus { return &o.Status }

// GetTargetDataset implements OperationObject: a DataBackup names a Dataset
// of its own namespace.
func (o *DataBackup) GetTargetDataset() (string, string, bool) {
	return target(o.Namespace, "", o.Spec.Dataset)
}

// GetRunAfter implements OperationObject.
func (o *DataBackup) GetRunAfter() *OperationRef { return o.Spec.RunAfter }

// GetOperationKind implements OperationObject.
func (o *DataBackup) GetOperationKind() OperationKind { return DataBackupKind }

// GetPolicy implements OperationObject: a DataBackup runs once.
func (o *DataBackup) GetPolicy() Policy { return Once }

// GetSchedule implements OperationObject: a DataBackup has no schedule.
func (o *DataBackup) GetSchedule() string { return "" }

// GetTTLSecondsAfterFinished implements OperationObject.
func (o *DataBackup) GetTTLSecondsAfterFinished() *int32 { return o.Spec.TTLSecondsAfterFinished }

// GetOperationStatus implements OperationObject.
func (o *DataMigrate) GetOperationStatus() *OperationStatus { return &o.Status }

// GetTargetDataset implements OperationObject: the Dataset end of spec.to,
// else of spec.from.
func (o *DataMigrate) GetTargetDataset() (string, string, bool) {
	for _, end := range []*DatasetToMigrate{o.Spec.To.DataSet, o.Spec.From.DataSet} {
		if end != nil {
			return target(o.Namespace, end.Namespace, end.Name)
		}
	}
	return "", "", false
}

// GetRunAfter implements OperationObject.
func (o *DataMigrate) GetRunAfter() *OperationRef { return o.Spec.RunAfter }

// GetOperationKind implements OperationObject.
func (o *DataMigrate) GetOperationKind() OperationKind { return DataMigrateKind }

// GetPolicy implements OperationObject.
func (o *DataMigrate) GetPolicy() Policy { return orOnce(o.Spec.Policy) }

// GetSchedule implements OperationObject.
func (o *DataMigrate) GetSchedule() string { return o.Spec.Schedule }

// GetTTLSecondsAfterFinished implements OperationObject.
func (o *DataMigrate) GetTTLSecondsAfterFinished() *int32 { return o.Spec.TTLSecondsAfterFinished }

// operationKinds is the one table of the data-operation kinds: a new
// operation kind is added here (TestSchemeKindsAreInTheTables fails until
// it is).
var operationKinds = []struct {
	kind    OperationKind
	new     func() OperationObject
	newList func() OperationList
}{
	{DataLoadKind, func() OperationObject { return &DataLoad{} }, func() OperationList { return &DataLoadList{} }},
	{DataMigrateKind, func() OperationObject { return &DataMigrate{} }, func() OperationList { return &DataMigrateList{} }},
	{DataBackupKind, func() OperationObject { return &DataBackup{} }, func() OperationList { return &DataBackupList{} }},
	{DataProcessKind, func() OperationObject { return &DataProcess{} }, func() OperationList { return &DataProcessList{} }},
}

// OperationKinds returns every data-operation kind.
func OperationKinds() []OperationKind {
	out := make([]OperationKind, len(operationKinds))
	for i, k := range operationKinds {
		out[i] = k.kind
	}
	return out
}

// NewOperation returns a new, empty object of the named data-operation kind
// (DataLoad, DataMigrate, DataBackup, DataProcess); ok is false for any
// other kind.
func NewOperation(kind string) (obj OperationObject, ok bool) {
	for _, k := range operationKinds {
		if string(k.kind) == kind {
			return k.new(), true
		}
	}
	return nil, false
}

// OperationList is a list of one data-operation kind.
// +kubebuilder:object:generate=false
type OperationList interface {
	metav1.ListInterface
	runtime.Object
	// GetOperations returns the items.
	GetOperations() []OperationObject
}

// NewOperationList returns a new, empty list of the named data-operation
// kind; ok is false for any other kind.
func NewOperationList(kind string) (list OperationList, ok bool) {
	for _, k := range operationKinds {
		if string(k.kind) == kind {
			return k.newList(), true
		}
	}
	return nil, false
}

// GetOperations implements OperationList.
func (l *DataLoadList) GetOperations() []OperationObject { return items(l.Items) }

// GetOperations implements OperationList.
func (l *DataMigrateList) GetOperations() []OperationObject { return items(l.Items) }

// GetOperations implements OperationList.
func (l *DataBackupList) GetOperations() []OperationObject { return items(l.Items) }

// GetOperations implements OperationList.
func (l *DataProcessList) GetOperations() []OperationObject { return items(l.Items) }

// items points at each element of a list's items.
func items[T any, P interface {
	*T
	OperationObject
}](list []T) []OperationObject {
	out := make([]OperationObject, len(list))
	for i := range list {
		out[i] = P(&list[i])
	}
	return out
}
