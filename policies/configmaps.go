package policies

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

const (
	// BundleLabel marks ConfigMaps whose keys are policy modules and data.
	BundleLabel = "policy.sluice.io/bundle"
	// StatusAnnotation is written on a policy ConfigMap by the webhook:
	// "ok" or the error that kept its bundle from loading.
	StatusAnnotation = "policy.sluice.io/status"
)

// ConfigMapFile is one key of a policy ConfigMap.
type ConfigMapFile struct {
	ConfigMap *corev1.ConfigMap
	Key       string
}

// Source names the file for messages.
func (f ConfigMapFile) Source() string {
	return fmt.Sprintf("ConfigMap %s/%s key %s", f.ConfigMap.Namespace, f.ConfigMap.Name, f.Key)
}

// Content is the file's content.
func (f ConfigMapFile) Content() string { return f.ConfigMap.Data[f.Key] }

// ConfigMapFiles are the keys of the policy ConfigMaps cms in the order
// they overlay the defaults: ConfigMaps in namespace/name order, keys in
// order, so that the outcome does not depend on the order they were
// listed in. The webhook loads them so, and the controller reads the
// data among them so (OverlayData).
func ConfigMapFiles(cms []corev1.ConfigMap) []ConfigMapFile {
	sorted := slices.Clone(cms)
	slices.SortFunc(sorted, func(a, b corev1.ConfigMap) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	var out []ConfigMapFile
	for i := range sorted {
		for _, k := range slices.Sorted(maps.Keys(sorted[i].Data)) {
			out = append(out, ConfigMapFile{ConfigMap: &sorted[i], Key: k})
		}
	}
	return out
}

// IsDataFile reports whether a file of this name is policy data (.yaml,
// .yml or .json), served to policies as data.sluice.config.
func IsDataFile(name string) bool {
	switch path.Ext(name) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// ParseData decodes a policy data file.
func ParseData(name, content, source string) (map[string]any, error) {
	var data map[string]any
	if err := yaml.Unmarshal([]byte(content), &data); err != nil {
		return nil, fmt.Errorf("policy data %s (%s): %w", name, source, err)
	}
	return data, nil
}

// MergeData deep-merges over onto base and returns the result; maps merge
// key by key, anything else in over replaces base's value. Neither input is
// modified.
func MergeData(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	maps.Copy(out, base)
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = MergeData(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// OverlayData is base with the policy data of the ConfigMaps cms merged
// over it, in the order the webhook loads them (ConfigMapFiles); their
// Rego modules are not read. A ConfigMap with a data file that does not
// parse is left out whole, as the webhook leaves it out, and its error
// returned among skipped.
func OverlayData(base map[string]any, cms []corev1.ConfigMap) (data map[string]any, skipped []error) {
	data = base
	var pending map[string]any // the current ConfigMap's data
	var current *corev1.ConfigMap
	var bad error
	flush := func() {
		if current != nil {
			if bad != nil {
				skipped = append(skipped, bad)
			} else {
				data = MergeData(data, pending)
			}
		}
		pending, bad = map[string]any{}, nil
	}
	for _, f := range ConfigMapFiles(cms) {
		if f.ConfigMap != current {
			flush()
			current = f.ConfigMap
		}
		if !IsDataFile(f.Key) || bad != nil {
			continue
		}
		d, err := ParseData(f.Key, f.Content(), f.Source())
		if err != nil {
			bad = err
			continue
		}
		pending = MergeData(pending, d)
	}
	flush()
	return data, skipped
}
