package policy

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/policies"
)

const (
	// BundleLabel marks ConfigMaps whose keys are policy modules and data.
	BundleLabel = policies.BundleLabel
	// StatusAnnotation is written on a policy ConfigMap: "ok" or the error
	// that kept its bundle from loading.
	StatusAnnotation = policies.StatusAnnotation
	// moduleSeparator in a ConfigMap key stands for "/" in a module ID:
	// key mutating__affinity.rego replaces module mutating/affinity.rego.
	moduleSeparator = "__"
)

// ModuleID returns the module ID that a ConfigMap key provides: keys with
// "__" name a module path ("mutating__affinity.rego" is
// "mutating/affinity.rego", replacing that default module); other keys get an
// ID of their own under configmaps/<namespace>/<name>/.
func ModuleID(cm *corev1.ConfigMap, key string) string {
	if strings.Contains(key, moduleSeparator) {
		return strings.ReplaceAll(key, moduleSeparator, "/")
	}
	return fmt.Sprintf("configmaps/%s/%s/%s", cm.Namespace, cm.Name, key)
}

// FromConfigMaps adds the modules and data of the given policy ConfigMaps
// to a copy of base, in namespace/name order and key order, so the result
// does not depend on the order the ConfigMaps were listed in.
func FromConfigMaps(base *Bundle, cms []corev1.ConfigMap) (*Bundle, error) {
	overlay := NewBundle()
	for _, f := range policies.ConfigMapFiles(cms) {
		if err := overlay.AddFile(ModuleID(f.ConfigMap, f.Key), f.Content(), f.Source()); err != nil {
			return nil, err
		}
	}
	return base.Merge(overlay), nil
}
