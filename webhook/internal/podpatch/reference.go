package podpatch

import (
	"encoding/json"

	"gomodules.xyz/jsonpatch/v2"
	corev1 "k8s.io/api/core/v1"
)

// Reference returns the JSON patch that turns from into to the simple way:
// both whole Pods marshalled and compared by jsonpatch.CreatePatch. It is
// the oracle Diff is tested against (which differs from it only where
// Diff leaves semantically equal fields alone and where it inserts
// containers, insert.go).
func Reference(from, to *corev1.Pod) ([]jsonpatch.JsonPatchOperation, error) {
	return reference(from, to)
}

// reference is Reference for any two values encoding/json can marshal.
func reference(from, to any) ([]jsonpatch.JsonPatchOperation, error) {
	a, err := json.Marshal(from)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(to)
	if err != nil {
		return nil, err
	}
	return jsonpatch.CreatePatch(a, b)
}
