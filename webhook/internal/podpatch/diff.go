package podpatch

import (
	"strings"

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
		{mutablePaths[0], p.Labels, len(p.Labels) == 0},
		{mutablePaths[1], p.Annotations, len(p.Annotations) == 0},
		{mutablePaths[2], p.Spec.Volumes, len(p.Spec.Volumes) == 0},
		{mutablePaths[3], p.Spec.InitContainers, len(p.Spec.InitContainers) == 0},
		{mutablePaths[4], p.Spec.Containers, len(p.Spec.Containers) == 0},
		{mutablePaths[5], p.Spec.Affinity, p.Spec.Affinity == nil},
	}
}

// mutablePaths are the JSON paths of mutableFields, in their order.
var mutablePaths = [6]string{"/metadata/labels", "/metadata/annotations", "/spec/volumes", "/spec/initContainers", "/spec/containers", "/spec/affinity"}

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
	var ops []jsonpatch.JsonPatchOperation
	a, b := mutableFields(from), mutableFields(to)
	for i := range a {
		var err error
		if ops, err = fieldOps(ops, a[i], b[i]); err != nil {
			return nil, err
		}
	}
	return ops, nil
}

// DiffAnnotated is Diff, and when that finds a change (to is then not
// semantically equal to from), also sets the annotation key to value on
// to and in the patch: a Pod that the mutators left as it was stays
// unannotated. An empty key adds nothing.
func DiffAnnotated(from, to *corev1.Pod, key, value string) ([]jsonpatch.JsonPatchOperation, error) {
	ops, err := Diff(from, to)
	if err != nil || len(ops) == 0 || key == "" {
		return ops, err
	}
	if to.Annotations == nil {
		to.Annotations = map[string]string{}
	}
	to.Annotations[key] = value
	// The annotations' operations again, in their place: those of the
	// fields before them, then theirs, then the rest.
	var before, after []jsonpatch.JsonPatchOperation
	for _, op := range ops {
		switch i := fieldIndex(op.Path); {
		case i < annotationsField:
			before = append(before, op)
		case i > annotationsField:
			after = append(after, op)
		}
	}
	out, err := fieldOps(before, mutableFields(from)[annotationsField], mutableFields(to)[annotationsField])
	if err != nil {
		return nil, err
	}
	return append(out, after...), nil
}

// fieldIndex is the index in mutableFields of the field an operation's
// path is in.
func fieldIndex(path string) int {
	for i, f := range mutablePaths {
		if rest, ok := strings.CutPrefix(path, f); ok && (rest == "" || rest[0] == '/') {
			return i
		}
	}
	return len(mutablePaths)
}

// fieldOps appends to ops the operations that turn one mutable field, fa,
// into fb.
func fieldOps(ops []jsonpatch.JsonPatchOperation, fa, fb mutableField) ([]jsonpatch.JsonPatchOperation, error) {
	switch {
	case fa.absent && fb.absent:
	case fa.absent:
		ops = append(ops, jsonpatch.NewOperation("add", fb.path, fb.value))
	case fb.absent:
		ops = append(ops, jsonpatch.NewOperation("remove", fa.path, nil))
	default:
		sub, unequal, err := structDiff(fa.value, fb.value, fa.path)
		if err != nil {
			return nil, err
		}
		// Semantically equal fields (quantities in another format) are
		// left alone; the test runs only where the encodings differ in a
		// way that could be semantically equal.
		if len(sub) > 0 && (unequal || !equality.Semantic.DeepEqual(fa.value, fb.value)) {
			ops = append(ops, sub...)
		}
	}
	return ops, nil
}
