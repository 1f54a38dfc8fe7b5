package decision

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Mutating is what the mutating policies decide for one Pod.
type Mutating struct {
	// Deny, when not empty, rejects the Pod; nothing else is applied.
	Deny []Denial `json:"deny"`
	// Warnings are returned to the client as admission warnings.
	Warnings []string `json:"warnings"`
	// Affinity is node affinity to merge into the Pod.
	Affinity Affinity `json:"affinity"`
	// MountPropagation sets the propagation of every container mount of the
	// named volumes that has none.
	MountPropagation []MountPropagation `json:"mountPropagation"`
	// Annotations are set on the Pod.
	Annotations map[string]string `json:"annotations"`
	// Labels are set on the Pod.
	Labels map[string]string `json:"labels"`
	// VolumeRewrites replace dataset PVC volumes by hostPath volumes.
	VolumeRewrites []VolumeRewrite `json:"volumeRewrites"`
	// Sidecars are FUSE sidecars to inject.
	Sidecars []Sidecar `json:"sidecars"`
	// AppPostStart are postStart hooks that hold app containers until their
	// dataset mounts are mounted FUSE file systems.
	AppPostStart []AppPostStart `json:"appPostStart"`
}

// AppPostStart is one app container's wait for its dataset mounts.
type AppPostStart struct {
	// Container names a container of spec.containers.
	Container string `json:"container"`
	// MountPaths are the container paths that must be FUSE mount points.
	MountPaths []string `json:"mountPaths"`
	// TimeoutSeconds bounds the wait; the hook fails, and the kubelet
	// restarts the container, when it runs out.
	TimeoutSeconds int32 `json:"timeoutSeconds"`
}

// Denial is one reason to reject an object, with the rule that gave it.
type Denial struct {
	// Rule names the policy rule, e.g. dataset-not-bound.
	Rule string `json:"rule"`
	// Message says what is wrong, naming the objects involved.
	Message string `json:"message"`
}

func (d Denial) String() string { return fmt.Sprintf("%s (rule %s)", d.Message, d.Rule) }

// Affinity is node affinity for a Pod. The Pod's required node affinity
// becomes (T1 or … or Tn) and R1 and … and Rm and (D1 or … or Dk): T its
// own terms, R Required, D RequiredTerms.
type Affinity struct {
	// Required requirements all hold: each is AND-ed into every required
	// node-selector term the Pod has (or into a new term if it has none).
	Required []corev1.NodeSelectorRequirement `json:"required"`
	// RequiredTerms are alternatives, of which a node matches at least one
	// (one per dataset labelled fluid.io/dataset.<name>.sched=required, as
	// Fluid appends them): each of the Pod's terms that matches none of
	// them is replaced by its AND with each of them.
	RequiredTerms []corev1.NodeSelectorTerm `json:"requiredTerms"`
	// Preferred terms are added to the Pod's preferred node affinity.
	Preferred []corev1.PreferredSchedulingTerm `json:"preferred"`
}

// MountPropagation sets a propagation mode on a volume's mounts.
type MountPropagation struct {
	Volume string                      `json:"volume"`
	Mode   corev1.MountPropagationMode `json:"mode"`
}

// VolumeRewrite replaces the named Pod volume by a hostPath volume.
type VolumeRewrite struct {
	Volume   string `json:"volume"`
	HostPath string `json:"hostPath"`
	// SubPath is the directory of the volume the Pod's containers mount
	// (a reference dataset's sub-path), "" for all of it: it goes into
	// each container mount's subPath, which the kubelet resolves refusing
	// symbolic links out of the volume, never into the hostPath (audit N2).
	SubPath string `json:"subPath,omitempty"`
}

// SidecarMode says how a FUSE sidecar is injected.
type SidecarMode string

const (
	// NativeSidecar injects an init container with restartPolicy Always.
	NativeSidecar SidecarMode = "native"
	// ContainerSidecar injects a regular container, first in the list.
	ContainerSidecar SidecarMode = "container"
)

// Sidecar is one FUSE sidecar to inject for a dataset volume.
type Sidecar struct {
	// Volume is the Pod volume the sidecar serves.
	Volume string `json:"volume"`
	// Dataset is "<namespace>/<name>".
	Dataset string `json:"dataset"`
	// MountPath is where the FUSE file system is mounted in the sidecar.
	MountPath string `json:"mountPath"`
	// Mode is native or container.
	Mode SidecarMode `json:"mode"`
	// Unprivileged drops the sidecar's privileges.
	Unprivileged bool `json:"unprivileged"`
	// ReadinessGate holds the app containers until the mount is live.
	ReadinessGate bool `json:"readinessGate"`
	// Env is set on the sidecar's container, each variable (name and
	// value) replacing the FUSE template's of the same name or added.
	Env []corev1.EnvVar `json:"env"`
	// Resources are set on the sidecar's container, each quantity
	// replacing the FUSE template's for its resource.
	Resources corev1.ResourceRequirements `json:"resources"`
	// UniqueHostPath gives the sidecar a host mount directory of its own
	// Pod: the FUSE template's host directory above the mount point, and
	// the dataset's hostPath volume, get a random per-Pod component.
	UniqueHostPath bool `json:"uniqueHostPath"`
	// DropVolumes name FUSE template volumes (the cache directories) that
	// the sidecar is injected without, with their mounts.
	DropVolumes []string `json:"dropVolumes"`
	// ExitWithApps wraps a container-mode sidecar's command so that it
	// stops, exiting 0, once the Pod carries the annotation
	// sidecar.sluice.io/apps-done=true (set by the controller when every
	// app container has ended).
	ExitWithApps bool `json:"exitWithApps"`
}

// Empty reports whether d changes nothing.
func (d *Mutating) Empty() bool {
	return len(d.Affinity.Required) == 0 && len(d.Affinity.RequiredTerms) == 0 && len(d.Affinity.Preferred) == 0 && len(d.MountPropagation) == 0 &&
		len(d.Annotations) == 0 && len(d.Labels) == 0 && len(d.VolumeRewrites) == 0 && len(d.Sidecars) == 0 &&
		len(d.AppPostStart) == 0
}
