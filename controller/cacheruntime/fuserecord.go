package cacheruntime

import (
	"context"
	"errors"
	"fmt"

	"helm.sh/helm/v3/pkg/chart"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
)

// annotationRecordOf says which chart and values (helm.Desired.Digest) a
// FUSE record was rendered from, so that an unchanged one is not written.
const annotationRecordOf = "sluice.io/rendered-from"

// platformRecord prefixes annotationRecordOf's digest on records rendered
// from the platform's runtime (platformRuntime), so that a record an
// earlier controller rendered with the tenant's container fields is
// rendered again although the release's values did not change.
const platformRecord = "platform/"

// recordFuse keeps the runtime's FUSE record (datav1alpha1.FuseRecord) in
// r.FuseRecords to the FUSE DaemonSet's pod template that the desired
// chart renders for the platform's copy of the runtime, its tenant
// container fields cleared (platformRuntime, audit N7): the record is the
// source of other namespaces' FUSE sidecars only. It runs before Helm
// deploys the release, so that the record never lags the DaemonSet. A
// release without a FUSE DaemonSet has no record, nor has a runtime the
// engine cannot serve without its tenant fields.
func (r *Reconciler) recordFuse(ctx context.Context, s *scope, c *chart.Chart, digest string) error {
	if r.FuseRecords == "" {
		return nil
	}
	if digest != "" {
		digest = platformRecord + digest
	}
	key := types.NamespacedName{Namespace: r.FuseRecords, Name: datav1alpha1.FuseRecordName(s.rt.GetUID())}
	stored := &corev1.PodTemplate{}
	err := r.reader().Get(ctx, key, stored)
	switch {
	case err == nil && digest != "" && stored.Annotations[annotationRecordOf] == digest:
		return nil
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("reading FUSE record %s: %w", key, err)
	}
	found := err == nil
	tmpl, ok, err := platformFuse(ctx, s.eng, c, s.ds, s.rt)
	if err != nil {
		return err
	}
	if !ok {
		if found {
			return r.deleteFuseRecord(ctx, s.rt.GetUID())
		}
		return nil
	}
	record := datav1alpha1.FuseRecord(r.FuseRecords, s.rt, tmpl)
	record.Annotations[annotationRecordOf] = digest
	if found {
		record.ResourceVersion = stored.ResourceVersion
		err = r.Client.Update(ctx, record)
	} else {
		err = r.Client.Create(ctx, record)
	}
	if err != nil {
		return fmt.Errorf("recording the FUSE template of %s in %s: %w", s.obs.dataset, key, err)
	}
	return nil
}

// deleteFuseRecord removes the FUSE record of the runtime with the UID.
func (r *Reconciler) deleteFuseRecord(ctx context.Context, uid types.UID) error {
	if r.FuseRecords == "" {
		return nil
	}
	return DeleteFuseRecord(ctx, r.Client, r.FuseRecords, uid)
}

// DeleteFuseRecord removes the FUSE record of the runtime with the UID from
// namespace, if it is there: the runtime's deletion does, and the orphan
// sweep (controller/gc) for a runtime that went without it.
func DeleteFuseRecord(ctx context.Context, c client.Writer, namespace string, uid types.UID) error {
	record := &corev1.PodTemplate{}
	record.Namespace, record.Name = namespace, datav1alpha1.FuseRecordName(uid)
	if err := c.Delete(ctx, record); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting FUSE record %s/%s: %w", record.Namespace, record.Name, err)
	}
	return nil
}

// platformFuse renders the FUSE pod template of rt's release for another
// namespace's sidecars: from the engine's values for the platform's copy
// of rt (platformRuntime). ok is false when the release has no FUSE
// DaemonSet, or when the engine refuses the copy (it cannot serve rt
// without a tenant field): such a runtime serves no other namespace.
func platformFuse(ctx context.Context, eng engines.Engine, c *chart.Chart, ds *datav1alpha1.Dataset, rt client.Object) (corev1.PodTemplateSpec, bool, error) {
	platform, err := platformRuntime(rt)
	if err != nil {
		return corev1.PodTemplateSpec{}, false, err
	}
	values, err := eng.Values(ds, platform)
	var engErr *engines.Error
	if errors.As(err, &engErr) {
		ctrl.LoggerFrom(ctx).Info("no FUSE record: the engine refuses the runtime without its tenant container fields, so no other namespace's Pod gets its sidecar", "reason", engErr.Error())
		return corev1.PodTemplateSpec{}, false, nil
	} else if err != nil {
		return corev1.PodTemplateSpec{}, false, fmt.Errorf("the platform's values of %s/%s: %w", rt.GetNamespace(), rt.GetName(), err)
	}
	return renderedFuse(ctx, c, values, rt.GetName(), rt.GetNamespace())
}

// renderedFuse renders the chart and returns the pod template of the
// release's FUSE DaemonSet (`<release>-fuse`), if it renders one.
func renderedFuse(ctx context.Context, c *chart.Chart, values map[string]any, release, namespace string) (corev1.PodTemplateSpec, bool, error) {
	manifests, err := helm.Render(ctx, c, values, release, namespace)
	if err != nil {
		return corev1.PodTemplateSpec{}, false, err
	}
	want := release + datav1alpha1.FuseDaemonSetSuffix
	var found *appsv1.DaemonSet
	var decodeErr error
	for _, name := range helm.SortedKeys(manifests) {
		err := helm.EachObject(manifests[name], func(doc []byte, u *unstructured.Unstructured) {
			if found != nil || u.GetAPIVersion() != "apps/v1" || u.GetKind() != "DaemonSet" || u.GetName() != want {
				return
			}
			found = &appsv1.DaemonSet{}
			decodeErr = yaml.UnmarshalStrict(doc, found)
		})
		if err == nil {
			err = decodeErr
		}
		if err != nil {
			return corev1.PodTemplateSpec{}, false, fmt.Errorf("reading the rendered %s: %w", name, err)
		}
		if found != nil {
			return found.Spec.Template, true, nil
		}
	}
	return corev1.PodTemplateSpec{}, false, nil
}
