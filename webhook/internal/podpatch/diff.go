package podpatch

import (
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
		switch fa, fb := a[i], b[i]; {
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
			// left alone; the test runs only where the encodings differ
			// in a way that could be semantically equal.
			if len(sub) > 0 && (unequal || !equality.Semantic.DeepEqual(fa.value, fb.value)) {
				ops = append(ops, sub...)
			}
		}
	}
	return ops, nil
}
