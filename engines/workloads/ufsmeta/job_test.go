package ufsmeta

import (
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func dataset(name string) *datav1alpha1.Dataset {
	return &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, UID: "6f1c2d3e-0000-4000-8000-000000000001"}}
}

var owner = metav1.OwnerReference{APIVersion: "data.fluid.io/v1alpha1", Kind: "AlluxioRuntime", Name: "imagenet", UID: "rt-uid"}

func TestJob(t *testing.T) {
	job := Job(dataset("imagenet"), owner, Options{Image: "ghcr.io/sluice-data/sluice:v1", Deadline: 90 * time.Minute})
	if job.Name != "imagenet-ufs-metadata" || job.Namespace != "team-a" {
		t.Errorf("Job %s/%s", job.Namespace, job.Name)
	}
	// The labels the admission policy for the controller's writes asks of
	// a Job (managed-by and fluid.io/dataset), and Owns' own.
	for k, v := range map[string]string{"app.kubernetes.io/managed-by": "sluice", "fluid.io/dataset": "team-a-imagenet", LabelComponent: Component} {
		if job.Labels[k] != v {
			t.Errorf("Job label %s = %q, want %q", k, job.Labels[k], v)
		}
	}
	if _, ok := job.Spec.Template.Labels["fluid.io/dataset"]; ok {
		t.Error("the pod carries fluid.io/dataset, which engines' worker anti-affinity selects")
	}
	if !Owns(job, "rt-uid") || Owns(job, "another") {
		t.Error("Owns does not recognise the Job by its owner's UID")
	}
	spec := job.Spec
	if *spec.ActiveDeadlineSeconds != 5400 || *spec.BackoffLimit != 1 || spec.TTLSecondsAfterFinished == nil {
		t.Errorf("Job bounds: deadline %d, backoffLimit %d, ttl %v", *spec.ActiveDeadlineSeconds, *spec.BackoffLimit, spec.TTLSecondsAfterFinished)
	}
	pod := spec.Template.Spec
	if *pod.AutomountServiceAccountToken || pod.RestartPolicy != "Never" || len(pod.Containers) != 1 {
		t.Fatalf("pod spec %+v", pod)
	}
	c := pod.Containers[0]
	if want := []string{"/sluice", "ufs-count", "--result-file=/dev/termination-log", "/dataset"}; !slices.Equal(c.Command, want) || c.Args != nil {
		t.Errorf("command %q %q, want %q: an argv, no shell", c.Command, c.Args, want)
	}
	if c.Image != "ghcr.io/sluice-data/sluice:v1" || c.TerminationMessagePath != ResultFile || c.TerminationMessagePolicy != "FallbackToLogsOnError" {
		t.Errorf("container %s: termination message %s (%s)", c.Image, c.TerminationMessagePath, c.TerminationMessagePolicy)
	}
	if len(c.VolumeMounts) != 1 || !c.VolumeMounts[0].ReadOnly || c.VolumeMounts[0].MountPath != MountPath ||
		pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "imagenet" || !pod.Volumes[0].PersistentVolumeClaim.ReadOnly {
		t.Errorf("the Dataset's PVC is not mounted read-only: %+v %+v", c.VolumeMounts, pod.Volumes)
	}
	sc := c.SecurityContext
	if *sc.RunAsUser != 0 || *sc.AllowPrivilegeEscalation || !*sc.ReadOnlyRootFilesystem ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || !slices.Equal(sc.Capabilities.Add, []corev1.Capability{"DAC_READ_SEARCH"}) {
		t.Errorf("security context %+v", sc)
	}
	if ref := metav1.GetControllerOf(job); ref == nil || ref.UID != "rt-uid" || *ref.BlockOwnerDeletion {
		t.Errorf("owner %+v: want the runtime as controller, not blocking its deletion", ref)
	}
}

func TestJobNamesFitThePodLabel(t *testing.T) {
	long := dataset(strings.Repeat("d", 60))
	job := Job(long, owner, Options{Image: "i"})
	if len(job.Name) > 63 || job.Name != "ufs-metadata-"+string(long.UID) {
		t.Errorf("a long Dataset's Job is named %q", job.Name)
	}
	if id := job.Labels["fluid.io/dataset"]; len(id) > 63 {
		t.Errorf("fluid.io/dataset %q is longer than a label value may be", id)
	}
	if *job.Spec.ActiveDeadlineSeconds != 60 {
		t.Errorf("no deadline given: %d s, want at least a minute", *job.Spec.ActiveDeadlineSeconds)
	}
}

func TestOwnsNoForeignJob(t *testing.T) {
	ref := owner
	ref.Controller = ptr.To(true)
	foreign := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "imagenet-ufs-metadata", OwnerReferences: []metav1.OwnerReference{ref}}}
	if Owns(foreign, "rt-uid") {
		t.Error("a Job without the metadata labels is owned")
	}
}
