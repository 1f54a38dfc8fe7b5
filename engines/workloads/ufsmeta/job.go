package ufsmeta

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Labels of a metadata Job and its pods.
const (
	// LabelComponent is app.kubernetes.io/component, Component on a
	// metadata Job and its pods.
	LabelComponent = "app.kubernetes.io/component"
	Component      = "ufs-metadata"
)

// Names in a metadata pod.
const (
	// Container is the name of the container that counts.
	Container = "count"
	// datasetVolume is the Dataset's PVC, mounted read-only at MountPath.
	datasetVolume = "dataset"
	// MountPath is where the pod sees the Dataset.
	MountPath = "/dataset"
)

// nameSuffix makes a metadata Job's name from its Dataset's.
const nameSuffix = "-ufs-metadata"

// maxJobName is the longest Job name whose pods can be created: the Job
// controller labels them with it.
const maxJobName = 63

// Options are the controller's settings of its metadata Jobs.
type Options struct {
	// Image is Sluice's image, which holds `sluice ufs-count`.
	Image      string
	PullPolicy corev1.PullPolicy
	// Deadline bounds a Job's run (activeDeadlineSeconds): a walk not done
	// by then fails.
	Deadline time.Duration
}

// ttlAfterFinished removes a finished Job the controller did not (it
// deletes each once it has read it); a day leaves it to be read after a
// controller outage.
const ttlAfterFinished = 24 * 60 * 60

// JobName is the name of the Dataset's metadata Job: "<dataset>-ufs-metadata",
// or "ufs-metadata-<uid>" when that is too long for a Job's pods.
func JobName(ds *datav1alpha1.Dataset) string {
	if name := ds.Name + nameSuffix; len(name) <= maxJobName {
		return name
	}
	return Component + "-" + string(ds.UID)
}

// Job is the metadata Job of ds, owned by its runtime (owner, a controller
// reference): one pod that mounts the Dataset's PVC read-only and runs
// `sluice ufs-count` on it, whose termination message is the result. The
// pod runs as root to read every directory (only DAC_READ_SEARCH of root's
// capabilities: it bypasses read and search permission checks, nothing
// else), with a read-only root file system, no service-account token and
// no API access. The Job and its pods carry LabelComponent and
// managed-by=sluice; the Job also carries fluid.io/dataset, which the
// chart's admission policy for the controller's writes asks for (its pods
// do not: engines' worker anti-affinity selects that label).
func Job(ds *datav1alpha1.Dataset, owner metav1.OwnerReference, o Options) *batchv1.Job {
	owner.Controller, owner.BlockOwnerDeletion = ptr.To(true), ptr.To(false)
	podLabels := map[string]string{LabelComponent: Component, engines.LabelManagedBy: "sluice"}
	jobLabels := map[string]string{LabelComponent: Component, engines.LabelManagedBy: "sluice", datav1alpha1.LabelDataset: DatasetID(ds)}
	c := dataop.Image{Repository: o.Image, PullPolicy: o.PullPolicy}.Container()
	c.Name = Container
	c.Command = dataop.Args("/sluice", "ufs-count", "--result-file="+ResultFile, MountPath)
	c.TerminationMessagePath = ResultFile
	// A count that fails leaves the file empty: its log says why.
	c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
	c.VolumeMounts = []corev1.VolumeMount{{Name: datasetVolume, MountPath: MountPath, ReadOnly: true}}
	c.Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
	}
	c.SecurityContext = &corev1.SecurityContext{
		RunAsUser: ptr.To[int64](0), RunAsNonRoot: ptr.To(false),
		AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: []corev1.Capability{"DAC_READ_SEARCH"}},
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: JobName(ds), Namespace: ds.Namespace, Labels: jobLabels, OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: batchv1.JobSpec{
			BackoffLimit:            ptr.To[int32](1),
			ActiveDeadlineSeconds:   ptr.To(int64(max(o.Deadline, time.Minute) / time.Second)),
			TTLSecondsAfterFinished: ptr.To[int32](ttlAfterFinished),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: map[string]string{"sidecar.istio.io/inject": "false"}},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: ptr.To(false),
					EnableServiceLinks:           ptr.To(false),
					Containers:                   []corev1.Container{c},
					Volumes: []corev1.Volume{{Name: datasetVolume, VolumeSource: corev1.VolumeSource{
						PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ds.Name, ReadOnly: true}}}},
				},
			},
		},
	}
}

// DatasetID is the fluid.io/dataset label value of ds's metadata Job:
// "<namespace>-<name>", or the Dataset's UID when that is too long for a
// label value.
func DatasetID(ds *datav1alpha1.Dataset) string {
	if id := datav1alpha1.KeyOf(ds).DatasetID(); len(id) <= maxJobName || ds.UID == "" {
		return id
	}
	return string(ds.UID)
}

// Owns says whether job is a metadata Job that the runtime of UID owner
// owns: its labels and its controller reference say so. Sluice reads and
// deletes no other Job of the name.
func Owns(job *batchv1.Job, owner types.UID) bool {
	ref := metav1.GetControllerOf(job)
	return ref != nil && ref.UID == owner && job.Labels[LabelComponent] == Component && job.Labels[engines.LabelManagedBy] == "sluice"
}
