package mutating

import (
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// The API server's ServiceAccount admission plugin (on in every cluster)
// adds to each Pod whose account automounts its token a projected volume
// named kube-api-access-<5 random characters>, and mounts it in every
// container, before mutating webhooks see the Pod. Its random name would
// make the replicas of a Deployment different inputs, none decided from
// the decision memo, and it carries nothing a data policy decides on: the
// policy input leaves it and its mounts out. Only a volume of exactly the
// plugin's making is left out; any other, whatever its name, is input.
const (
	apiAccessPrefix    = "kube-api-access-"
	apiAccessMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// apiAccessProjection is the plugin's volume source (its
// TokenVolumeSource): the account's token, the cluster's CA bundle and the
// Pod's namespace.
var apiAccessProjection = &corev1.ProjectedVolumeSource{
	DefaultMode: ptr.To[int32](corev1.ProjectedVolumeSourceDefaultMode),
	Sources: []corev1.VolumeProjection{
		{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3607)}},
		{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
			Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
		{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
	},
}

// apiAccessVolume returns the index of the Pod's ServiceAccount token
// volume of the plugin's making, or -1 if it has none.
func apiAccessVolume(p *corev1.Pod) int {
	for i, v := range p.Spec.Volumes {
		if len(v.Name) != len(apiAccessPrefix)+5 || !strings.HasPrefix(v.Name, apiAccessPrefix) {
			continue
		}
		src := v.VolumeSource
		src.Projected = nil
		if src == (corev1.VolumeSource{}) && reflect.DeepEqual(v.Projected, apiAccessProjection) {
			return i
		}
	}
	return -1
}

// withoutAPIAccess returns volumes without the i-th (none for -1),
// sharing their array when there is nothing to leave out.
func withoutAPIAccess(volumes []corev1.Volume, i int) []corev1.Volume {
	if i < 0 {
		return volumes
	}
	return append(volumes[:i:i], volumes[i+1:]...)
}

// mountsWithoutAPIAccess returns mounts without the plugin's mount of the
// volume named name (read-only, at the token path, nothing else set).
func mountsWithoutAPIAccess(mounts []corev1.VolumeMount, name string) []corev1.VolumeMount {
	plugin := corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: apiAccessMountPath}
	i := -1
	for j := range mounts {
		if name != "" && reflect.DeepEqual(&mounts[j], &plugin) {
			i = j
		}
	}
	if i < 0 {
		return mounts
	}
	return append(mounts[:i:i], mounts[i+1:]...)
}
