package dataop

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// LabelInstance is app.kubernetes.io/instance, the release name on the
// workload and its pods.
const LabelInstance = "app.kubernetes.io/instance"

// reservedLabels are the labels the chart sets; podMetadata may not.
var reservedLabels = []string{engines.LabelOperationKind, engines.LabelOperationName, engines.LabelManagedBy, LabelInstance}

// checkMetadata checks podMetadata as the API server would check the pod's
// labels and annotation names, so that a bad one is reported against the
// operation's field rather than by a failed install; annotation values may
// be any string. Labels the chart sets are refused, not overwritten.
func checkMetadata(field string, m datav1alpha1.PodMetadata) error {
	for _, k := range slices.Sorted(maps.Keys(m.Labels)) {
		if slices.Contains(reservedLabels, k) {
			return engines.Invalid("%s.labels[%q]: Sluice sets this label on the operation's pods", field, k)
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return engines.Invalid("%s.labels[%q]: not a label name: %s", field, k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(m.Labels[k]); len(errs) > 0 {
			return engines.Invalid("%s.labels[%q]: value %q is not a label value: %s", field, k, m.Labels[k], strings.Join(errs, "; "))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Annotations)) {
		if errs := validation.IsQualifiedName(strings.ToLower(k)); len(errs) > 0 {
			return engines.Invalid("%s.annotations[%q]: not an annotation name: %s", field, k, strings.Join(errs, "; "))
		}
	}
	return nil
}
