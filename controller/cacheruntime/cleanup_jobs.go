package cacheruntime

import (
	"context"
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
)

// jobOutcome is what a cleanup Job came to.
type jobOutcome struct {
	// finished: the Job completed or failed.
	finished bool
	// failed says why it failed, "" when it completed (or has not
	// finished).
	failed string
}

// failure is why the Job did not clean up: its failure, or, unfinished,
// stopped (when the cleanup stopped early for a reason of its own) or that
// it did not finish within the policy's bound; "" when it completed.
func (o jobOutcome) failure(p cachecleanup.Policy, stopped string) string {
	switch {
	case o.finished:
		return o.failed
	case stopped != "":
		return stopped
	}
	return fmt.Sprintf("did not finish within %s (%s)", p.GiveUpAfter(), p)
}

// jobOutcome reads a cleanup Job: Complete, or Failed (FailureTarget: the
// Job controller has decided it failed) with its reason and message and
// what its last pod came to. A Job not (yet) found has not finished.
func (r *Reconciler) jobOutcome(ctx context.Context, namespace, name string) (jobOutcome, error) {
	job := &batchv1.Job{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, job); err != nil {
		if apierrors.IsNotFound(err) {
			return jobOutcome{}, nil
		}
		return jobOutcome{}, err
	}
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete, batchv1.JobSuccessCriteriaMet:
			return jobOutcome{finished: true}, nil
		case batchv1.JobFailed, batchv1.JobFailureTarget:
			why := fmt.Sprintf("Job %s failed (%s: %s)", name, c.Reason, strings.TrimSuffix(c.Message, "."))
			last, err := r.lastAttempt(ctx, job)
			if err != nil {
				return jobOutcome{}, err
			}
			if last != "" {
				why += "; its last attempt " + last
			}
			return jobOutcome{finished: true, failed: why}, nil
		}
	}
	return jobOutcome{}, nil
}

// lastAttempt describes the Job's latest pod: how its container ended
// (the exit code and, the container's message being its log's tail on an
// error, what rm said), or the phase it never left.
func (r *Reconciler) lastAttempt(ctx context.Context, job *batchv1.Job) (string, error) {
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.ControllerUidLabel: string(job.UID)}); err != nil {
		return "", err
	}
	if len(pods.Items) == 0 {
		return "", nil
	}
	last := slices.MaxFunc(pods.Items, func(a, b corev1.Pod) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	for _, cs := range last.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			out := fmt.Sprintf("exited %d (%s)", t.ExitCode, t.Reason)
			if msg := strings.TrimSpace(t.Message); msg != "" {
				out += ": " + oneLine(msg, 200)
			}
			return out, nil
		}
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return fmt.Sprintf("never ran (%s: %s)", w.Reason, oneLine(w.Message, 200)), nil
		}
	}
	if last.Status.Reason != "" {
		return fmt.Sprintf("was %s (%s)", last.Status.Phase, last.Status.Reason), nil
	}
	return fmt.Sprintf("was %s", last.Status.Phase), nil
}

// oneLine is s on one line, at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// maxListed bounds the nodes a message names.
const maxListed = 10

// nodeList names nodes for a message: "node a", "nodes a, b" or "nodes
// a, b, ... and 3 more".
func nodeList(nodes []string) string {
	switch len(nodes) {
	case 0:
		return "no node"
	case 1:
		return "node " + nodes[0]
	}
	if len(nodes) > maxListed {
		return "nodes " + strings.Join(nodes[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(nodes)-maxListed)
	}
	return "nodes " + strings.Join(nodes, ", ")
}

// joinMessages joins per-node messages, at most maxListed of them.
func joinMessages(msgs []string) string {
	if len(msgs) > maxListed {
		return strings.Join(msgs[:maxListed], "; ") + fmt.Sprintf("; and %d more nodes", len(msgs)-maxListed)
	}
	return strings.Join(msgs, "; ")
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
