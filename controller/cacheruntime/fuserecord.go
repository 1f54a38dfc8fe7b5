package cacheruntime

import (
	"context"
	"fmt"

	"helm.sh/helm/v3/pkg/chart"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
)

// annotationRecordOf says which chart and values (helm.Desired.Digest) a
// FUSE record was rendered from, so that an unchanged one is not written.
const annotationRecordOf = "sluice.io/rendered-from"

// recordFuse keeps the runtime's FUSE record (datav1alpha1.FuseRecord) in
// r.FuseRecords to the FUSE DaemonSet's pod template the desired chart and
// values render. It runs before Helm deploys them, so that the record
// never lags the DaemonSet. A release without a FUSE DaemonSet has no
// record.
func (r *Reconciler) recordFuse(ctx context.Context, s *scope, c *chart.Chart, digest string) error {
	if r.FuseRecords == "" {
		return nil
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
	tmpl, ok, err := renderedFuse(ctx, c, s.values, s.rt.GetName(), s.rt.GetNamespace())
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
