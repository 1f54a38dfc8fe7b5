package ufsmeta

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/sluice-data/sluice/engines"
)

func TestOutcomeOf(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "d-ufs-metadata", UID: "job-uid"}}
	pod := func(name, of string, phase corev1.PodPhase, exit int32, msg string) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "batch/v1", Kind: "Job", Name: "d-ufs-metadata", UID: "job-uid", Controller: ptr.To(true)}}}}
		p.OwnerReferences[0].UID = types.UID(of)
		p.Status.Phase = phase
		if phase != corev1.PodRunning {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: Container, State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Message: msg}}}}
		}
		return p
	}
	failed := func(j *batchv1.Job, typ batchv1.JobConditionType) *batchv1.Job {
		j = j.DeepCopy()
		j.Status.Conditions = []batchv1.JobCondition{{Type: typ, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded", Message: "Job was active longer than specified deadline"}}
		return j
	}
	for _, c := range []struct {
		name   string
		job    *batchv1.Job
		pods   []corev1.Pod
		state  State
		usage  engines.UFSUsage
		reason string // a part of it
	}{
		{name: "no pod yet", job: job, state: Running},
		{name: "its pod runs", job: job, pods: []corev1.Pod{pod("p", "job-uid", corev1.PodRunning, 0, "")}, state: Running},
		{name: "its pod wrote the result", job: job, pods: []corev1.Pod{pod("p", "job-uid", corev1.PodSucceeded, 0, `{"bytes":2048,"files":3}`)},
			state: Succeeded, usage: engines.UFSUsage{Bytes: 2048, Files: 3}},
		{name: "a retry succeeded after a failure", job: job, pods: []corev1.Pod{
			pod("p1", "job-uid", corev1.PodFailed, 1, "Error: counting /dataset: permission denied"),
			pod("p2", "job-uid", corev1.PodSucceeded, 0, `{"bytes":1,"files":1}`)},
			state: Succeeded, usage: engines.UFSUsage{Bytes: 1, Files: 1}},
		{name: "another Job's pod is not read", job: job, pods: []corev1.Pod{pod("p", "other-uid", corev1.PodSucceeded, 0, `{"bytes":1,"files":1}`)}, state: Running},
		{name: "succeeded without a result", job: job, pods: []corev1.Pod{pod("p", "job-uid", corev1.PodSucceeded, 0, "")},
			state: Failed, reason: "pod p: the metadata pod's result"},
		{name: "the Job failed", job: failed(job, batchv1.JobFailed), pods: []corev1.Pod{pod("p", "job-uid", corev1.PodFailed, 1, "Error: counting /dataset: permission denied\n")},
			state: Failed, reason: "the Job failed (DeadlineExceeded): Job was active longer than specified deadline; pod p exited 1: Error: counting /dataset: permission denied"},
		{name: "complete, its pods gone", job: failed(job, batchv1.JobComplete), state: Failed, reason: "no pod of it holds a result"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := OutcomeOf(c.job, c.pods)
			if got.State != c.state || got.Usage != c.usage || !strings.Contains(got.Reason, c.reason) {
				t.Errorf("OutcomeOf = %+v; want state %v, usage %+v, a reason with %q", got, c.state, c.usage, c.reason)
			}
		})
	}
}
