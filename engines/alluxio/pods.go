package alluxio

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// podValues are the pod-level settings of one workload.
type podValues struct {
	HostNetwork      bool                          `json:"hostNetwork"`
	NodeSelector     map[string]string             `json:"nodeSelector"`
	Labels           map[string]string             `json:"labels"`
	Annotations      map[string]string             `json:"annotations"`
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets"`
}

// containerValues are the settings of one container.
type containerValues struct {
	Resources corev1.ResourceRequirements `json:"resources"`
	Env       []corev1.EnvVar             `json:"env"`
	Ports     map[string]int              `json:"ports,omitempty"`
	// VolumeMounts are the user's spec.<component>.volumeMounts (the
	// master's and worker's are in their pod's VolumeMounts).
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
}

func newPod(rt *datav1alpha1.AlluxioRuntime, hostNetwork bool, sel map[string]string, pm datav1alpha1.PodMetadata, secrets []corev1.LocalObjectReference) podValues {
	return podValues{
		HostNetwork:      hostNetwork,
		NodeSelector:     orEmpty(sel),
		Labels:           engines.Merge(rt.Spec.PodMetadata.Labels, pm.Labels),
		Annotations:      engines.Merge(rt.Spec.PodMetadata.Annotations, pm.Annotations),
		ImagePullSecrets: append(append([]corev1.LocalObjectReference{}, rt.Spec.ImagePullSecrets...), secrets...),
	}
}

// envBuilder assembles a container's environment in the order Kubernetes
// needs: a variable is expanded in $(NAME) only if NAME comes before it.
type envBuilder struct{ env []corev1.EnvVar }

func (b *envBuilder) field(name, path string) *envBuilder {
	b.env = append(b.env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}})
	return b
}

func (b *envBuilder) add(vars ...corev1.EnvVar) *envBuilder {
	b.env = append(b.env, vars...)
	return b
}

func (b *envBuilder) set(name, value string) *envBuilder {
	return b.add(corev1.EnvVar{Name: name, Value: value})
}

// javaOpts sets an ALLUXIO_*_JAVA_OPTS variable: the flags Sluice needs,
// then the runtime's and the component's jvmOptions (later flags win in the
// JVM).
func (b *envBuilder) javaOpts(name string, flags []string, jvm ...[]string) *envBuilder {
	all := append([]string{}, flags...)
	for _, opts := range jvm {
		all = append(all, opts...)
	}
	if len(all) == 0 {
		return b
	}
	return b.set(name, strings.Join(all, " "))
}

// runAs passes spec.runAs to the image's entrypoint, which creates the user
// and drops to it.
func (b *envBuilder) runAs(u *datav1alpha1.User) *envBuilder {
	if u == nil || u.UID == nil || u.GID == nil {
		return b
	}
	return b.set("ALLUXIO_UID", strconv.FormatInt(*u.UID, 10)).set("ALLUXIO_GID", strconv.FormatInt(*u.GID, 10)).
		set("ALLUXIO_USERNAME", u.UserName).set("ALLUXIO_GROUP", u.GroupName)
}

// user appends the component's spec env, sorted by name.
func (b *envBuilder) user(env map[string]string) []corev1.EnvVar {
	for _, k := range slices.Sorted(maps.Keys(env)) {
		b.set(k, env[k])
	}
	if b.env == nil {
		return []corev1.EnvVar{}
	}
	return b.env
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
