package juicefs

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// chartLabels are the pod labels the chart sets; podMetadata may not set
// them (the selectors, the dataset and placement labels depend on them).
var chartLabels = []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by",
	datav1alpha1.LabelDataset, "fluid.io/dataset-placement", "role"}

// podMetadata merges the runtime's podMetadata under the component's (the
// component's wins on a conflict, as in Fluid).
func podMetadata(field string, runtime, comp datav1alpha1.PodMetadata) (map[string]any, error) {
	labels := engines.Merge(runtime.Labels, comp.Labels)
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if slices.Contains(chartLabels, k) {
			return nil, engines.Invalid("spec.podMetadata.labels or %s.podMetadata.labels: %q is set by the engine", field, k)
		}
	}
	return map[string]any{"labels": labels, "annotations": engines.Merge(runtime.Annotations, comp.Annotations)}, nil
}

// chartVolumes are the pod volume names the chart uses.
var chartVolumes = []string{"fuse-mount", "fuse-device", confVolume}

// checkVolumes refuses spec.volumes and spec.volumeClaimTemplates whose
// names the chart uses, or that are named twice.
func checkVolumes(rt *datav1alpha1.JuiceFSRuntime) error {
	seen := map[string]string{}
	check := func(field, name string) error {
		if slices.Contains(chartVolumes, name) || strings.HasPrefix(name, "cache-") {
			return engines.Invalid("%s.name %q is used by the engine; rename it (reserved: %s, cache-*)", field, name, strings.Join(chartVolumes, ", "))
		}
		if prev, ok := seen[name]; ok {
			return engines.Invalid("%s.name %q is also %s's", field, name, prev)
		}
		seen[name] = field
		return nil
	}
	for i, v := range rt.Spec.Volumes {
		if err := check(fmt.Sprintf("spec.volumes[%d]", i), v.Name); err != nil {
			return err
		}
	}
	for i, c := range rt.Spec.VolumeClaimTemplates {
		if err := check(fmt.Sprintf("spec.volumeClaimTemplates[%d]", i), c.Name); err != nil {
			return err
		}
	}
	return nil
}

// userVolumes are the spec.volumes a component's volumeMounts name, each
// once (a component mounts only what it names, as in Fluid), and the
// claim templates the workers' mounts name. Only workers, a StatefulSet,
// can mount a claim template, and each template must be mounted.
func userVolumes(field string, rt *datav1alpha1.JuiceFSRuntime, mounts []corev1.VolumeMount, workers bool) ([]corev1.Volume, []corev1.PersistentVolumeClaim, error) {
	var vols []corev1.Volume
	var claims []corev1.PersistentVolumeClaim
	for i, m := range mounts {
		if j := slices.IndexFunc(rt.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name }); j >= 0 {
			if !slices.ContainsFunc(vols, func(v corev1.Volume) bool { return v.Name == m.Name }) {
				vols = append(vols, rt.Spec.Volumes[j])
			}
			continue
		}
		j := slices.IndexFunc(rt.Spec.VolumeClaimTemplates, func(c corev1.PersistentVolumeClaim) bool { return c.Name == m.Name })
		if j < 0 || !workers {
			where := "spec.volumes"
			if workers {
				where += " or spec.volumeClaimTemplates"
			}
			return nil, nil, engines.Invalid("%s.volumeMounts[%d] mounts %q, which is not in %s", field, i, m.Name, where)
		}
		if !slices.ContainsFunc(claims, func(c corev1.PersistentVolumeClaim) bool { return c.Name == m.Name }) {
			claims = append(claims, rt.Spec.VolumeClaimTemplates[j])
		}
	}
	if workers {
		for i, c := range rt.Spec.VolumeClaimTemplates {
			if !slices.ContainsFunc(claims, func(u corev1.PersistentVolumeClaim) bool { return u.Name == c.Name }) {
				return nil, nil, engines.Invalid("spec.volumeClaimTemplates[%d] (%q) is mounted by no spec.worker.volumeMounts", i, c.Name)
			}
		}
	}
	return vols, claims, nil
}
