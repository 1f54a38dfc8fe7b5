package mutating

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/webhook/snapshot"
)

// Input is the policy input document (see docs/design/policy-decision.md).
type Input struct {
	Request        InputRequest             `json:"request"`
	Pod            InputPod                 `json:"pod"`
	Namespace      snapshot.Namespace       `json:"namespace"`
	DatasetVolumes []snapshot.DatasetVolume `json:"datasetVolumes"`
	Cluster        InputCluster             `json:"cluster"`
}

// InputRequest describes the admission request.
type InputRequest struct {
	Operation string    `json:"operation"`
	Namespace string    `json:"namespace"`
	User      InputUser `json:"user"`
	DryRun    bool      `json:"dryRun"`
}

// InputUser is the requesting user.
type InputUser struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

// InputCluster describes what the cluster supports.
type InputCluster struct {
	// NativeSidecars is true when init containers may have restartPolicy Always.
	NativeSidecars bool `json:"nativeSidecars"`
}

// InputPod is the part of the Pod that policies see. It keeps the input
// small (policies are evaluated on every Pod CREATE): the metadata, and the
// spec fields that scheduling, volume and sidecar decisions depend on.
type InputPod struct {
	Metadata InputPodMeta `json:"metadata"`
	Spec     InputPodSpec `json:"spec"`
}

// InputPodMeta is the Pod's metadata as policies see it.
type InputPodMeta struct {
	Name            string                  `json:"name,omitempty"`
	GenerateName    string                  `json:"generateName,omitempty"`
	Namespace       string                  `json:"namespace,omitempty"`
	Labels          map[string]string       `json:"labels,omitempty"`
	Annotations     map[string]string       `json:"annotations,omitempty"`
	OwnerReferences []metav1.OwnerReference `json:"ownerReferences,omitempty"`
}

// InputPodSpec is the Pod's spec as policies see it.
type InputPodSpec struct {
	NodeSelector       map[string]string          `json:"nodeSelector,omitempty"`
	Affinity           *corev1.Affinity           `json:"affinity,omitempty"`
	Tolerations        []corev1.Toleration        `json:"tolerations,omitempty"`
	ServiceAccountName string                     `json:"serviceAccountName,omitempty"`
	SchedulerName      string                     `json:"schedulerName,omitempty"`
	PriorityClassName  string                     `json:"priorityClassName,omitempty"`
	RuntimeClassName   *string                    `json:"runtimeClassName,omitempty"`
	Volumes            []corev1.Volume            `json:"volumes,omitempty"`
	InitContainers     []InputContainer           `json:"initContainers,omitempty"`
	Containers         []InputContainer           `json:"containers,omitempty"`
	SecurityContext    *corev1.PodSecurityContext `json:"securityContext,omitempty"`
	RestartPolicy      corev1.RestartPolicy       `json:"restartPolicy,omitempty"`
}

// InputContainer is a container as policies see it.
type InputContainer struct {
	Name            string                         `json:"name"`
	Image           string                         `json:"image,omitempty"`
	VolumeMounts    []corev1.VolumeMount           `json:"volumeMounts,omitempty"`
	SecurityContext *corev1.SecurityContext        `json:"securityContext,omitempty"`
	RestartPolicy   *corev1.ContainerRestartPolicy `json:"restartPolicy,omitempty"`
	// Lifecycle is there for app.poststart.fluid.io/inject, which leaves a
	// container's own postStart hook alone.
	Lifecycle *corev1.Lifecycle `json:"lifecycle,omitempty"`
}

// NewInput returns the input document for req.
func NewInput(req Request, vols []snapshot.DatasetVolume, ns snapshot.Namespace, nativeSidecars bool) Input {
	if vols == nil {
		vols = []snapshot.DatasetVolume{}
	}
	groups := req.User.Groups
	if groups == nil {
		groups = []string{}
	}
	return Input{
		Request:        InputRequest{Operation: req.Operation, Namespace: req.Namespace, User: InputUser{Username: req.User.Username, Groups: groups}, DryRun: req.DryRun},
		Pod:            podInput(req.Pod),
		Namespace:      ns,
		DatasetVolumes: vols,
		Cluster:        InputCluster{NativeSidecars: nativeSidecars},
	}
}

// podInput is the part of p that policies see, without the ServiceAccount
// token volume the API server adds (apiaccess.go).
func podInput(p *corev1.Pod) InputPod {
	m := p.ObjectMeta
	i, token := apiAccessVolume(p), ""
	if i >= 0 {
		token = p.Spec.Volumes[i].Name
	}
	return InputPod{
		Metadata: InputPodMeta{Name: m.Name, GenerateName: m.GenerateName, Namespace: m.Namespace, Labels: m.Labels, Annotations: m.Annotations, OwnerReferences: m.OwnerReferences},
		Spec: InputPodSpec{
			NodeSelector: p.Spec.NodeSelector, Affinity: p.Spec.Affinity, Tolerations: p.Spec.Tolerations,
			ServiceAccountName: p.Spec.ServiceAccountName, SchedulerName: p.Spec.SchedulerName,
			PriorityClassName: p.Spec.PriorityClassName, RuntimeClassName: p.Spec.RuntimeClassName,
			Volumes: withoutAPIAccess(p.Spec.Volumes, i), InitContainers: containersInput(p.Spec.InitContainers, token),
			Containers: containersInput(p.Spec.Containers, token), SecurityContext: p.Spec.SecurityContext,
			RestartPolicy: p.Spec.RestartPolicy,
		},
	}
}

// containersInput is what policies see of containers, without their
// mounts of the token volume named token ("" for none).
func containersInput(cs []corev1.Container, token string) []InputContainer {
	if cs == nil {
		return nil
	}
	out := make([]InputContainer, len(cs))
	for i, c := range cs {
		out[i] = InputContainer{Name: c.Name, Image: c.Image, VolumeMounts: mountsWithoutAPIAccess(c.VolumeMounts, token),
			SecurityContext: c.SecurityContext, RestartPolicy: c.RestartPolicy, Lifecycle: c.Lifecycle}
	}
	return out
}
