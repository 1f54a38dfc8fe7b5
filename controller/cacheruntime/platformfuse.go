package cacheruntime

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/internal/lazy"
	"github.com/sluice-data/sluice/trust"
)

// The FUSE record (datav1alpha1.FuseRecord) is the source of the FUSE
// sidecars the webhook injects into the Pods of namespaces other than the
// runtime's (reliability audit M12, N7). Those sidecars are privileged
// containers in another tenant's Pod, so the record holds only what the
// platform decides: the chart rendered from a copy of the runtime whose
// tenant container fields (TenantContainerFields) are cleared. The engine's
// image, its own command and argv, its FUSE mount, cache directories and
// configuration, and the environment it sets itself stay; the producer
// namespace's env, volumes, volumeMounts, JVM options, arguments, probes,
// lifecycle hooks, ports and pod metadata do not. The producer's own FUSE
// DaemonSet, and the sidecars of its own namespace's Pods, keep them.

// Rules of trust.Table whose rows are tenant container fields besides
// trust.RulePrivileged: a runtime's volumes (spec.volumes) and a Thin FUSE
// program's command and arguments overriding its profile's.
const (
	ruleHostPathVolume = "host-path-volume"
	ruleThinOverride   = "thin-override"
)

// podMetadataFields are the last segments of the tenant-safe rows that set
// the labels and annotations of an engine's pods: safe in the producer's
// namespace, but the producer's to choose, so not the platform's either.
var podMetadataFields = []string{"podMetadata", "labels"}

// TenantContainerFields are, per runtime kind, the field paths (as
// trust.AllFields gives them) whose values a namespace user sets for the
// engine's containers as code or configuration: every row the
// privileged-container rule judges (env, volumeMounts, JVM options,
// arguments, probes, lifecycle, ports), the runtime's volumes, a Thin
// program override, and the pods' labels and annotations. Derived from
// trust.Table, a field that table classifies so later is included
// without further code.
func TenantContainerFields() map[string][]string { return tenantContainerFields() }

var tenantContainerFields = lazy.Value("cacheruntime: tenant container fields", func() map[string][]string {
	out := map[string][]string{}
	for kind, paths := range trust.AllFields() {
		if !strings.HasSuffix(kind, "Runtime") {
			continue
		}
		for _, p := range paths {
			if row, ok := trust.Classify(kind, p); ok && tenantContainerRow(row) {
				out[kind] = append(out[kind], p)
			}
		}
	}
	return out
})

func tenantContainerRow(row trust.Row) bool {
	switch row.Rule {
	case trust.RulePrivileged, ruleHostPathVolume, ruleThinOverride:
		return row.Class == trust.Guarded
	}
	segs := strings.Split(row.Path, ".")
	return slices.Contains(podMetadataFields, segs[len(segs)-1])
}

// platformRuntime returns a deep copy of rt with its tenant container
// fields (TenantContainerFields) cleared: the runtime the FUSE record is
// rendered from.
func platformRuntime(rt client.Object) (client.Object, error) {
	cp, ok := rt.DeepCopyObject().(client.Object)
	if !ok {
		return nil, fmt.Errorf("copying runtime %s/%s", rt.GetNamespace(), rt.GetName())
	}
	kind := reflect.TypeOf(rt).Elem().Name()
	for _, p := range tenantContainerFields()[kind] {
		if err := clearAt(reflect.ValueOf(cp), strings.Split(p, ".")); err != nil {
			return nil, fmt.Errorf("clearing %s of %s %s/%s: %w", p, kind, rt.GetNamespace(), rt.GetName(), err)
		}
	}
	return cp, nil
}

// clearAt sets the field at the path segments under v (named by their
// JSON tags, "name[]" for each element of a list) to its zero value.
func clearAt(v reflect.Value, segs []string) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if len(segs) == 0 {
		if !v.CanSet() {
			return fmt.Errorf("field of type %s cannot be set", v.Type())
		}
		v.Set(reflect.Zero(v.Type()))
		return nil
	}
	name, each := strings.CutSuffix(segs[0], "[]")
	child, ok := engines.JSONField(v, name)
	if !ok {
		return fmt.Errorf("no field %q in %s", name, v.Type())
	}
	if !each {
		return clearAt(child, segs[1:])
	}
	for i := range child.Len() {
		if err := clearAt(child.Index(i), segs[1:]); err != nil {
			return err
		}
	}
	return nil
}

// PlatformFuseTemplate is the FUSE pod template the controller records for
// rt (recordFuse): its engine's chart rendered for the platform's copy of
// rt. ok is false when there is no record to write. Tests use it to build
// the record a producer's runtime gets.
func PlatformFuseTemplate(ctx context.Context, eng engines.Engine, ds *datav1alpha1.Dataset, rt client.Object) (corev1.PodTemplateSpec, bool, error) {
	c, err := helm.LoadChart(eng.Chart())
	if err != nil {
		return corev1.PodTemplateSpec{}, false, err
	}
	return platformFuse(ctx, eng, c, ds, rt)
}
