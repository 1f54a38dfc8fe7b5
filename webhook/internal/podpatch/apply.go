package podpatch

import (
	"encoding/json"
	"fmt"

	evanjsonpatch "github.com/evanphx/json-patch/v5"
	"gomodules.xyz/jsonpatch/v2"
	corev1 "k8s.io/api/core/v1"
)

// Apply applies ops, in order, to the JSON document doc, as the API server
// applies a webhook's patch to the object it sent.
func Apply(doc []byte, ops []jsonpatch.JsonPatchOperation) ([]byte, error) {
	raw, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	patch, err := evanjsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, fmt.Errorf("the patch %s does not decode: %w", raw, err)
	}
	out, err := patch.Apply(doc)
	if err != nil {
		return nil, fmt.Errorf("the patch %s does not apply to %s: %w", raw, doc, err)
	}
	return out, nil
}

// ApplyToPod applies ops to pod (Apply) and returns the Pod they give.
func ApplyToPod(pod *corev1.Pod, ops []jsonpatch.JsonPatchOperation) (*corev1.Pod, error) {
	doc, err := json.Marshal(pod)
	if err != nil {
		return nil, err
	}
	patched, err := Apply(doc, ops)
	if err != nil {
		return nil, err
	}
	out := &corev1.Pod{}
	if err := json.Unmarshal(patched, out); err != nil {
		return nil, fmt.Errorf("the patched object is not a Pod: %w", err)
	}
	return out, nil
}
