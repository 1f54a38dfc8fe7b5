package v1alpha1

import (
	"k8s.io/apimachinery/pkg/types"
)

// Per-dataset label keys have the form "fluid.io/<prefix><namespace>-<name>",
// for example fluid.io/s-default-imagenet. The part after "fluid.io/" is a
// label name and may not exceed 63 characters; when it would, the key uses the
// dataset's UID instead of "<namespace>-<name>", which is what Fluid does too.
//
// Like Fluid's, these keys join namespace and name with "-", so namespace "a-b"
// with dataset "c" and namespace "a" with dataset "b-c" share keys; Sluice
// keeps the format because Pods and nodes labelled for Fluid depend on it.

const (
	// labelDomain is the DNS prefix of every per-dataset key.
	labelDomain = "fluid.io/"
	// maxLabelName is the longest label name Kubernetes accepts.
	maxLabelName = 63

	cachePrefix    = "s-"
	fusePrefix     = "f-"
	capacityPrefix = "s-h-"
)

// CapacityKind says which cache capacity a node label reports.
type CapacityKind string

const (
	// MemoryCapacity is the node's memory cache capacity (label segment "m").
	MemoryCapacity CapacityKind = "m"
	// DiskCapacity is the node's disk cache capacity (label segment "d").
	DiskCapacity CapacityKind = "d"
	// TotalCapacity is the node's total cache capacity (label segment "t").
	TotalCapacity CapacityKind = "t"
)

// DatasetKey identifies a dataset for building its label keys.
type DatasetKey struct {
	Namespace string
	Name      string
	// UID is used when "<namespace>-<name>" makes a key too long.
	UID types.UID
}

// KeyOf returns the DatasetKey of a Dataset.
func KeyOf(d *Dataset) DatasetKey {
	return DatasetKey{Namespace: d.Namespace, Name: d.Name, UID: d.UID}
}

// CacheLabelKey is the node label "fluid.io/s-<ns>-<name>" saying that a
// runtime of the dataset caches data on the node.
func (k DatasetKey) CacheLabelKey() string { return k.labelKey(cachePrefix) }

// RuntimeCacheLabelKey is "fluid.io/s-<runtimeType>-<ns>-<name>", the
// runtime-type-specific cache label, e.g. fluid.io/s-juicefs-default-demo.
func (k DatasetKey) RuntimeCacheLabelKey(runtimeType string) string {
	return k.labelKey(cachePrefix + runtimeType + "-")
}

// CapacityLabelKey is "fluid.io/s-h-<runtimeType>-<m|d|t>-<ns>-<name>",
// whose value is the node's cache capacity of that kind, e.g. "2GiB".
func (k DatasetKey) CapacityLabelKey(runtimeType string, kind CapacityKind) string {
	return k.labelKey(capacityPrefix + runtimeType + "-" + string(kind) + "-")
}

// FuseLabelKey is "fluid.io/f-<ns>-<name>": the CSI plugin sets it to "true"
// on a node where a Pod uses the dataset, and the FUSE DaemonSet selects it.
func (k DatasetKey) FuseLabelKey() string { return k.labelKey(fusePrefix) }

// ExclusiveLabelValue is the value of LabelExclusive, "<ns>_<name>".
func (k DatasetKey) ExclusiveLabelValue() string { return k.Namespace + "_" + k.Name }

// DatasetID is "<ns>-<name>", the value of LabelDatasetID and LabelDataset.
func (k DatasetKey) DatasetID() string { return k.Namespace + "-" + k.Name }

func (k DatasetKey) labelKey(prefix string) string {
	name := prefix + k.Namespace + "-" + k.Name
	if len(name) > maxLabelName && k.UID != "" {
		name = prefix + string(k.UID)
	}
	return labelDomain + name
}

// DatasetSchedLabelKey is the Pod label "fluid.io/dataset.<name>.sched";
// the value "required" asks for required cache affinity to the dataset.
func DatasetSchedLabelKey(datasetName string) string {
	return "fluid.io/dataset." + datasetName + ".sched"
}
