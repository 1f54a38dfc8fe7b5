package v1alpha1

import (
	"fmt"
	"hash/fnv"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// A reference dataset mounts another Dataset: its one mount is
// dataset://<namespace>/<name>[/<sub-path>], and a ThinRuntime of its name
// without spec.profileName serves it from the referenced Dataset's cache
// and FUSE (the Dataset controller creates that runtime when none exists,
// as Fluid does).

// ReferenceScheme starts the mount point of a reference dataset's mount.
const ReferenceScheme = "dataset://"

// AnnotationReferableFrom on a Dataset lets Datasets of other namespaces
// reference it: a comma-separated list of namespaces, or "*" for every
// namespace (Sluice-specific; the validating policy
// policies/validating/references.rego reads it). A Dataset of the same
// namespace may always reference it.
const AnnotationReferableFrom = "data.sluice.io/referable-from"

// DatasetReference is what a dataset:// mount point names.
// +kubebuilder:object:generate=false
type DatasetReference struct {
	// Namespace and Name are the referenced Dataset's.
	Namespace, Name string
	// SubPath is the directory of the referenced Dataset that the
	// reference dataset exposes, without leading or trailing "/"; "" for
	// its root.
	SubPath string
}

// Key is the reference's target as status.datasetRef and messages write
// it, "<namespace>/<name>".
func (r DatasetReference) Key() string { return r.Namespace + "/" + r.Name }

// DatasetRefName is a reference dataset as the referenced Dataset's
// status.datasetRef lists it, "<namespace>/<name>" (Fluid's format).
func DatasetRefName(namespace, name string) string { return namespace + "/" + name }

// IsReferenceMount says whether a mount point uses the dataset:// scheme.
func IsReferenceMount(mountPoint string) bool {
	return strings.HasPrefix(strings.TrimSpace(mountPoint), ReferenceScheme)
}

// ParseReference parses a dataset:// mount point. The namespace must be a
// DNS-1123 label and the name a DNS-1035 label (the names Kubernetes and
// Sluice accept for them); the sub-path, when there is one, may not hold
// empty, "." or ".." segments, so that it names a directory inside the
// referenced Dataset and nothing outside it.
func ParseReference(mountPoint string) (DatasetReference, error) {
	mp := strings.TrimSpace(mountPoint)
	rest, ok := strings.CutPrefix(mp, ReferenceScheme)
	if !ok {
		return DatasetReference{}, fmt.Errorf("%q is not a %s mount point", mountPoint, ReferenceScheme)
	}
	form := fmt.Sprintf("the form is %s<namespace>/<name>[/<sub-path>]", ReferenceScheme)
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return DatasetReference{}, fmt.Errorf("%q names no Dataset: %s", mountPoint, form)
	}
	r := DatasetReference{Namespace: parts[0], Name: parts[1]}
	if errs := validation.IsDNS1123Label(r.Namespace); len(errs) > 0 {
		return DatasetReference{}, fmt.Errorf("%q: namespace %q is not a namespace name: %s", mountPoint, r.Namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1035Label(r.Name); len(errs) > 0 {
		return DatasetReference{}, fmt.Errorf("%q: %q is not a Dataset name: %s", mountPoint, r.Name, strings.Join(errs, "; "))
	}
	if len(parts) == 3 {
		sub := strings.TrimSuffix(parts[2], "/")
		if sub != "" {
			for _, seg := range strings.Split(sub, "/") {
				if seg == "" || seg == "." || seg == ".." {
					return DatasetReference{}, fmt.Errorf("%q: sub-path %q may not hold empty, \".\" or \"..\" segments", mountPoint, parts[2])
				}
			}
			if path.Clean("/"+sub) != "/"+sub {
				return DatasetReference{}, fmt.Errorf("%q: sub-path %q is not a clean path", mountPoint, parts[2])
			}
		}
		r.SubPath = sub
	}
	return r, nil
}

// ReferenceOf says whether ds is a reference dataset (a mount uses the
// dataset:// scheme) and, if it is, what it references. The error says why
// it is not a valid one: dataset:// must be its only mount, of the form
// ParseReference accepts. Admission refuses such Datasets
// (policies/validating/references.rego); the controller reports them.
func ReferenceOf(ds *Dataset) (DatasetReference, bool, error) {
	var refs []int
	for i, m := range ds.Spec.Mounts {
		if IsReferenceMount(m.MountPoint) {
			refs = append(refs, i)
		}
	}
	switch {
	case len(refs) == 0:
		return DatasetReference{}, false, nil
	case len(ds.Spec.Mounts) > 1:
		return DatasetReference{}, true, fmt.Errorf("spec.mounts: a Dataset with a %s mount has that one mount only (it has %d mounts)", ReferenceScheme, len(ds.Spec.Mounts))
	}
	r, err := ParseReference(ds.Spec.Mounts[0].MountPoint)
	if err != nil {
		return DatasetReference{}, true, fmt.Errorf("spec.mounts[0].mountPoint: %w", err)
	}
	return r, true, nil
}

// ReferenceCopyName is the name of the copy, in a reference dataset's
// namespace, of a ConfigMap the referenced runtime's FUSE reads: the
// controller keeps the copy and the webhook points the FUSE sidecars of
// the reference dataset's Pods at it. It is "<dataset>-<original>", cut to
// a valid object name (with a hash of the whole) when that is too long.
func ReferenceCopyName(dataset, original string) string {
	name := dataset + "-" + original
	if len(name) <= validation.DNS1123SubdomainMaxLength {
		return name
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	suffix := fmt.Sprintf("-%08x", h.Sum32())
	return strings.TrimRight(name[:validation.DNS1123SubdomainMaxLength-len(suffix)], "-.") + suffix
}
