package ufsmeta

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/engines"
)

// State is where a metadata Job is.
type State int

// The states of a metadata Job.
const (
	// Running: no result yet.
	Running State = iota
	// Succeeded: a pod wrote its result.
	Succeeded
	// Failed: the Job failed, or its pod ended without a result.
	Failed
)

// Outcome is what a metadata Job came to.
type Outcome struct {
	State State
	// Usage is the result, when Succeeded.
	Usage engines.UFSUsage
	// Reason says why, when Failed.
	Reason string
}

// OutcomeOf reads a metadata Job's outcome from the Job and its pods (of
// pods, those the Job controls are read, by UID): the first pod whose
// counting container exited 0 gives the result in its termination message;
// a pod that succeeded with an unreadable message fails the Job (the
// result of a pod that did not run the count is never guessed); a Job the
// Job controller marked Failed (its deadline, its retries) fails with the
// condition's message and the last failed pod's message, and a Job marked
// Complete whose pods are gone without a result fails too.
func OutcomeOf(job *batchv1.Job, pods []corev1.Pod) Outcome {
	var lastFailure string
	for i := range pods {
		p := &pods[i]
		if ref := metav1.GetControllerOf(p); ref == nil || ref.UID != job.UID {
			continue
		}
		t := terminated(p)
		switch {
		case t == nil:
		case t.ExitCode == 0 && p.Status.Phase == corev1.PodSucceeded:
			u, err := ParseMessage(t.Message)
			if err != nil {
				return Outcome{State: Failed, Reason: fmt.Sprintf("pod %s: %v", p.Name, err)}
			}
			return Outcome{State: Succeeded, Usage: u}
		case t.ExitCode != 0:
			lastFailure = fmt.Sprintf("pod %s exited %d: %s", p.Name, t.ExitCode, strings.TrimSpace(t.Message))
		}
	}
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobFailed:
			reason := fmt.Sprintf("the Job failed (%s): %s", c.Reason, c.Message)
			if lastFailure != "" {
				reason += "; " + lastFailure
			}
			return Outcome{State: Failed, Reason: reason}
		case batchv1.JobComplete:
			return Outcome{State: Failed, Reason: "the Job completed, but no pod of it holds a result"}
		}
	}
	return Outcome{State: Running}
}

// terminated is the counting container's terminated state, if it ended.
func terminated(p *corev1.Pod) *corev1.ContainerStateTerminated {
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == Container {
			return s.State.Terminated
		}
	}
	return nil
}
