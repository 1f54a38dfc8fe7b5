package policies

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/policies/enforcement"
)

const (
	// BundleLabel marks ConfigMaps whose keys are policy modules and data.
	BundleLabel = "policy.sluice.io/bundle"
	// StatusAnnotation is written on a policy ConfigMap by the webhook:
	// StatusOK, or StatusRejected of the error that kept its bundle from
	// loading.
	StatusAnnotation = "policy.sluice.io/status"
	// StatusOK is the status of a ConfigMap the webhook serves.
	StatusOK = "ok"
	// statusRejectedPrefix starts the status of one it left out.
	statusRejectedPrefix = "error: "
)

// StatusRejected is the status of a policy ConfigMap the webhook left out
// for the error why.
func StatusRejected(why string) string { return statusRejectedPrefix + why }

// Rejected reports whether the webhook left the policy ConfigMap out
// (its status is StatusRejected).
func Rejected(cm *corev1.ConfigMap) bool {
	return strings.HasPrefix(cm.Annotations[StatusAnnotation], statusRejectedPrefix)
}

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
	sorted := sortedConfigMaps(cms)
	var out []ConfigMapFile
	for i := range sorted {
		for _, k := range slices.Sorted(maps.Keys(sorted[i].Data)) {
			out = append(out, ConfigMapFile{ConfigMap: &sorted[i], Key: k})
		}
	}
	return out
}

// sortedConfigMaps is a copy of cms in namespace/name order.
func sortedConfigMaps(cms []corev1.ConfigMap) []corev1.ConfigMap {
	sorted := slices.Clone(cms)
	slices.SortFunc(sorted, func(a, b corev1.ConfigMap) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return sorted
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

// ParseData decodes a policy data file and checks it against the policy
// data schema (ValidateData): data that does not fit is an error naming
// the file, its source and the path of each key that does not fit.
func ParseData(name, content, source string) (map[string]any, error) {
	var data map[string]any
	if err := yaml.Unmarshal([]byte(content), &data); err != nil {
		return nil, fmt.Errorf("policy data %s (%s): %w", name, source, err)
	}
	if err := ValidateData(data); err != nil {
		return nil, fmt.Errorf("policy data %s (%s): %w", name, source, err)
	}
	// The enforcement section's shape is checked per file, so that a
	// misspelt mode is reported on (and leaves out) the file that has it.
	if e, ok := data[enforcement.Key]; ok {
		if err := enforcement.ParsePart(e); err != nil {
			return nil, fmt.Errorf("policy data %s (%s): %w", name, source, err)
		}
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
	for _, cm := range sortedConfigMaps(cms) {
		d, err := configMapData(&cm)
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		data = MergeData(data, d)
	}
	return data, skipped
}

// configMapData is the policy data of one ConfigMap's data files, merged
// in key order.
func configMapData(cm *corev1.ConfigMap) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		if !IsDataFile(k) {
			continue
		}
		f := ConfigMapFile{ConfigMap: cm, Key: k}
		d, err := ParseData(k, f.Content(), f.Source())
		if err != nil {
			return nil, err
		}
		out = MergeData(out, d)
	}
	return out, nil
}
