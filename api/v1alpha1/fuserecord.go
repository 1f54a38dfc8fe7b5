package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A FUSE record is the FUSE pod template the controller rendered for a
// runtime, kept as a PodTemplate in the controller's own namespace, which
// the runtime's namespace cannot write. A Pod of another namespace that
// gets a FUSE sidecar of the runtime gets it from the record, never from
// the runtime namespace's `<runtime>-fuse` DaemonSet, whose users may
// change it (reliability audit M12).
const (
	// LabelFuseRecord marks FUSE records ("true"), which the webhook caches.
	LabelFuseRecord = "sluice.io/fuse-record"
	// AnnotationFuseRecordRuntime names the runtime of a FUSE record,
	// "<namespace>/<name>", for people (its name holds the runtime's UID).
	AnnotationFuseRecordRuntime = "sluice.io/runtime"
)

// FuseRecordName is the name of the FUSE record of the runtime with the
// given UID: a runtime deleted and created again under its name gets a
// record of its own.
func FuseRecordName(runtime types.UID) string { return "fuse-" + string(runtime) }

// FuseRecord returns the FUSE record of rt in namespace, holding template.
func FuseRecord(namespace string, rt metav1.Object, template corev1.PodTemplateSpec) *corev1.PodTemplate {
	return &corev1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{
			Name: FuseRecordName(rt.GetUID()), Namespace: namespace,
			Labels:      map[string]string{LabelFuseRecord: "true", "app.kubernetes.io/managed-by": "sluice"},
			Annotations: map[string]string{AnnotationFuseRecordRuntime: rt.GetNamespace() + "/" + rt.GetName()},
		},
		Template: template,
	}
}
