package v1alpha1

import corev1 "k8s.io/api/core/v1"

// Placement is where a spec lets an operation's pods run. Field is the
// field that holds its fields (spec).
// +kubebuilder:object:generate=false
type Placement struct {
	Field         string
	Affinity      *corev1.Affinity
	Tolerations   []corev1.Toleration
	NodeSelector  map[string]string
	SchedulerName string
}

// LocationField is a location a spec names by URI (local://, pvc://,
// s3://, ...), at its field path.
// +kubebuilder:object:generate=false
type LocationField struct {
	Path string
	URI  string
}

// GetPodMetadata implements OperationObject.
func (o *DataLoad) GetPodMetadata() (PodMetadata, string) {
	return o.Spec.PodMetadata, "spec.podMetadata"
}

// GetPodMetadata implements OperationObject.
func (o *DataMigrate) GetPodMetadata() (PodMetadata, string) {
	return o.Spec.PodMetadata, "spec.podMetadata"
}

// GetPodMetadata implements OperationObject: a DataBackup has none.
func (o *DataBackup) GetPodMetadata() (PodMetadata, string) { return PodMetadata{}, "" }

// GetPodMetadata implements OperationObject: the processor's.
func (o *DataProcess) GetPodMetadata() (PodMetadata, string) {
	return o.Spec.Processor.PodMetadata, "spec.processor.podMetadata"
}

// GetPlacement implements OperationObject.
func (o *DataLoad) GetPlacement() *Placement {
	sp := o.Spec
	return &Placement{Field: "spec", Affinity: sp.Affinity, Tolerations: sp.Tolerations, NodeSelector: sp.NodeSelector, SchedulerName: sp.SchedulerName}
}

// GetPlacement implements OperationObject.
func (o *DataMigrate) GetPlacement() *Placement {
	sp := o.Spec
	return &Placement{Field: "spec", Affinity: sp.Affinity, Tolerations: sp.Tolerations, NodeSelector: sp.NodeSelector, SchedulerName: sp.SchedulerName}
}

// GetPlacement implements OperationObject: a DataBackup's pod runs where
// its engine puts it.
func (o *DataBackup) GetPlacement() *Placement { return nil }

// GetPlacement implements OperationObject: the processor's pod spec
// places a DataProcess's pod.
func (o *DataProcess) GetPlacement() *Placement { return nil }

// GetLocations implements OperationObject: none.
func (o *DataLoad) GetLocations() []LocationField { return nil }

// GetLocations implements OperationObject: the external ends, spec.from's
// then spec.to's.
func (o *DataMigrate) GetLocations() []LocationField {
	var out []LocationField
	for _, end := range []struct {
		field string
		at    DataToMigrate
	}{{"spec.from", o.Spec.From}, {"spec.to", o.Spec.To}} {
		if e := end.at.ExternalStorage; e != nil {
			out = append(out, LocationField{Path: end.field + ".externalStorage.uri", URI: e.URI})
		}
	}
	return out
}

// GetLocations implements OperationObject: spec.backupPath.
func (o *DataBackup) GetLocations() []LocationField {
	return []LocationField{{Path: "spec.backupPath", URI: o.Spec.BackupPath}}
}

// GetLocations implements OperationObject: none.
func (o *DataProcess) GetLocations() []LocationField { return nil }
