package engines

import (
	"encoding/json"
	"maps"
)

// Merge layers string maps (a Dataset's sharedOptions under a mount's
// options, pod labels, properties): a later layer's value wins. The result
// is a new map, never nil, so that it renders as {} rather than null.
func Merge(layers ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, l := range layers {
		maps.Copy(out, l)
	}
	return out
}

// ToPlain round-trips chart values through JSON so that they hold only
// maps, lists and scalars, as Helm stores them.
func ToPlain(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(data, &out)
}
