package validating

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// ReferenceFacts is what a reference dataset's dataset:// mount leads to
// (policies/validating/references.rego).
type ReferenceFacts struct {
	// Field and Error say why the Dataset is not a valid reference dataset
	// (its dataset:// mount is not its only mount, or is malformed); both
	// "" when it is one.
	Field string `json:"field"`
	Error string `json:"error"`
	// Namespace, Name and SubPath are what the mount names.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	SubPath   string `json:"subPath"`
	// Exists says whether the referenced Dataset exists.
	Exists bool `json:"exists"`
	// Chain is the referenced Dataset's own dataset:// mount point when it
	// is a reference dataset itself, "" when it is not.
	Chain string `json:"chain"`
	// ReferableFrom are the namespaces the referenced Dataset's
	// data.sluice.io/referable-from annotation lets reference it.
	ReferableFrom []string `json:"referableFrom"`
	// Runtime names a runtime of the Dataset's name that cannot serve a
	// reference dataset (any but a ThinRuntime without spec.profileName),
	// "" when there is none.
	Runtime string `json:"runtime"`
	// Ignored are the spec fields the Dataset sets that a reference
	// dataset does not use (it serves the referenced Dataset's cache as
	// that Dataset's runtime makes it).
	Ignored []string `json:"ignored"`
}

// referenceFacts are the facts of ds when it is a reference dataset, nil
// when it is not.
func (g *Gatherer) referenceFacts(ctx context.Context, ds *datav1alpha1.Dataset) (*ReferenceFacts, error) {
	r, isRef, err := datav1alpha1.ReferenceOf(ds)
	if !isRef {
		return nil, nil
	}
	f := &ReferenceFacts{ReferableFrom: []string{}, Ignored: ignoredByReference(ds)}
	if err != nil {
		f.Field, f.Error = "spec.mounts[0].mountPoint", err.Error()
		if len(ds.Spec.Mounts) > 1 {
			f.Field = "spec.mounts"
		}
		f.Error = strings.TrimPrefix(f.Error, f.Field+": ")
		return f, nil
	}
	f.Namespace, f.Name, f.SubPath = r.Namespace, r.Name, r.SubPath
	target := &datav1alpha1.Dataset{}
	found, err := g.get(ctx, types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, target)
	if err != nil {
		return nil, err
	}
	if found {
		f.Exists = true
		if _, chained, _ := datav1alpha1.ReferenceOf(target); chained {
			f.Chain = target.Spec.Mounts[0].MountPoint
		}
		for _, ns := range strings.Split(target.Annotations[datav1alpha1.AnnotationReferableFrom], ",") {
			if ns = strings.TrimSpace(ns); ns != "" {
				f.ReferableFrom = append(f.ReferableFrom, ns)
			}
		}
	}
	f.Runtime, err = g.referenceRuntimeConflict(ctx, ds.Namespace, ds.Name)
	return f, err
}

// referenceRuntimeConflict names the runtime of the reference dataset's
// name that cannot serve it, "" when there is none.
func (g *Gatherer) referenceRuntimeConflict(ctx context.Context, ns, name string) (string, error) {
	for _, k := range datav1alpha1.RuntimeKinds() {
		obj, _ := datav1alpha1.NewRuntime(k.Kind)
		found, err := g.get(ctx, types.NamespacedName{Namespace: ns, Name: name}, obj)
		if err != nil || !found {
			if err != nil {
				return "", err
			}
			continue
		}
		thin, ok := obj.(*datav1alpha1.ThinRuntime)
		switch {
		case !ok:
			return k.Kind + " " + name, nil
		case thin.Spec.ProfileName != "":
			return fmt.Sprintf("ThinRuntime %s (spec.profileName %s)", name, thin.Spec.ProfileName), nil
		}
	}
	return "", nil
}

// ignoredByReference are the spec fields ds sets that a reference dataset
// does not use.
func ignoredByReference(ds *datav1alpha1.Dataset) []string {
	s := ds.Spec
	out := []string{}
	add := func(set bool, field string) {
		if set {
			out = append(out, field)
		}
	}
	add(s.Owner != nil, "spec.owner")
	add(s.NodeAffinity != nil, "spec.nodeAffinity")
	add(len(s.Tolerations) > 0, "spec.tolerations")
	add(s.Placement != "", "spec.placement")
	add(s.DataRestoreLocation != nil, "spec.dataRestoreLocation")
	add(len(s.SharedOptions) > 0, "spec.sharedOptions")
	add(len(s.SharedEncryptOptions) > 0, "spec.sharedEncryptOptions")
	for i, m := range s.Mounts {
		add(len(m.Options) > 0, fmt.Sprintf("spec.mounts[%d].options", i))
		add(len(m.EncryptOptions) > 0, fmt.Sprintf("spec.mounts[%d].encryptOptions", i))
		add(m.ReadOnly, fmt.Sprintf("spec.mounts[%d].readOnly", i))
		add(m.Shared, fmt.Sprintf("spec.mounts[%d].shared", i))
	}
	return out
}
