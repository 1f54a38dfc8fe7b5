package podpatch

import (
	"maps"

	"gomodules.xyz/jsonpatch/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// mutableFields are the parts of a Pod that mutators change, with their
// JSON paths. Diff compares only these, and diffs only those that changed;
// tests prove the result equals Reference on every fixture and on random
// changes of these fields.
func mutableFields(p *corev1.Pod) [6]mutableField {
	return [6]mutableField{
		{"/metadata/labels", p.Labels, len(p.Labels) == 0},
		{"/metadata/annotations", p.Annotations, len(p.Annotations) == 0},
		{"/spec/volumes", p.Spec.Volumes, len(p.Spec.Volumes) == 0},
		{"/spec/initContainers", p.Spec.InitContainers, len(p.Spec.InitContainers) == 0},
		{"/spec/containers", p.Spec.Containers, len(p.Spec.Containers) == 0},
		{"/spec/affinity", p.Spec.Affinity, p.Spec.Affinity == nil},
	}
}

// annotationsField is the index of the annotations in mutableFields.
const annotationsField = 1

type mutableField struct {
	path   string
	value  any
	absent bool // omitted from the Pod's JSON
}

// Diff returns the JSON patch that turns from into to, which may differ
// only in the labels, annotations, volumes, containers and affinity that
// mutators change. The operations are those of Reference (see structDiff),
// except that a field semantically equal on both sides (a quantity in
// another format) is left alone, so only real changes appear (fields
// unknown to this build are never removed), and that containers inserted
// into a container list are insertions (insert.go), so that those fields
// stay on their own container.
func Diff(from, to *corev1.Pod) ([]jsonpatch.JsonPatchOperation, error) {
	return DiffAnnotated(from, to, "", "")
}

// DiffAnnotated is Diff, and when that finds a change (to is then not
// semantically equal to from), also sets the annotation key to value on
// to and in the patch: a Pod that the mutators left as it was stays
// unannotated. An empty key adds nothing.
func DiffAnnotated(from, to *corev1.Pod, key, value string) ([]jsonpatch.JsonPatchOperation, error) {
	a, b := mutableFields(from), mutableFields(to)
	var perField [len(a)][]jsonpatch.JsonPatchOperation
	// The annotations last, once: whether the mutators changed them is a
	// comparison of two string maps (what structDiff would find, with no
	// semantic equality to consult), and the key is set before they are
	// diffed.
	changed := !maps.Equal(from.Annotations, to.Annotations)
	for i := range a {
		if i == annotationsField {
			continue
		}
		var err error
		if perField[i], err = fieldOps(a[i], b[i]); err != nil {
			return nil, err
		}
		changed = changed || len(perField[i]) > 0
	}
	if changed && key != "" {
		if to.Annotations == nil {
			to.Annotations = map[string]string{}
		}
		to.Annotations[key] = value
		b[annotationsField] = mutableFields(to)[annotationsField]
	}
	var err error
	if perField[annotationsField], err = fieldOps(a[annotationsField], b[annotationsField]); err != nil {
		return nil, err
	}
	var ops []jsonpatch.JsonPatchOperation
	for _, f := range perField {
		ops = append(ops, f...)
	}
	return ops, nil
}

// fieldOps returns the operations that turn one mutable field, fa, into
// fb.
func fieldOps(fa, fb mutableField) ([]jsonpatch.JsonPatchOperation, error) {
	switch {
	case fa.absent && fb.absent:
		return nil, nil
	case fa.absent:
		return []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("add", fb.path, fb.value)}, nil
	case fb.absent:
		return []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("remove", fa.path, nil)}, nil
	}
	sub, unequal, err := structDiff(fa.value, fb.value, fa.path)
	if err != nil {
		return nil, err
	}
	// Semantically equal fields (quantities in another format) are left
	// alone; the test runs only where the encodings differ in a way that
	// could be semantically equal.
	if len(sub) > 0 && (unequal || !equality.Semantic.DeepEqual(fa.value, fb.value)) {
		return sub, nil
	}
	return nil, nil
}
