package webhook

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// trimDaemonSet is the part of an engine DaemonSet (labelled
// fluid.io/dataset, as every engine chart labels its FUSE DaemonSet) the
// webhook reads: its identity (the gatherer's memo keys on UID and
// resourceVersion), its deletion and, of a FUSE DaemonSet (named
// <runtime>-fuse, the only name the gatherer reads), the pod template's
// spec, from which a FUSE sidecar is built. Nothing else is kept: no
// annotation, label, status, selector or template metadata. The cache
// selects DaemonSets by a label any tenant who may create DaemonSets can
// set, so a DaemonSet that is not a FUSE DaemonSet keeps its identity
// alone, whatever its author put in it (audit N9).
func trimDaemonSet(obj any) (any, error) {
	ds, ok := obj.(*appsv1.DaemonSet)
	if !ok {
		return stripManagedFields(obj)
	}
	out := &appsv1.DaemonSet{TypeMeta: ds.TypeMeta, ObjectMeta: identity(&ds.ObjectMeta, []string{datav1alpha1.LabelDataset})}
	if strings.HasSuffix(ds.Name, datav1alpha1.FuseDaemonSetSuffix) {
		out.Spec.Template.Spec = ds.Spec.Template.Spec
	}
	return out, nil
}
