package operation

import (
	"context"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/internal/optional"
)

// observeJob follows a Once operation's Job: running, it is Executing;
// finished, Complete or Failed, with where its pod ran. A Job just
// installed that the cache does not show yet runs.
func (r *Reconciler) observeJob(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if s.job == nil {
		s.obs.run = &run{name: s.release, executing: true}
		return ctrl.Result{}, true, nil
	}
	s.obs.run = runOf(s.job)
	if s.obs.run.done {
		return ctrl.Result{}, true, r.observePlacement(ctx, s, s.job)
	}
	return ctrl.Result{}, true, nil
}

// runOf reads a Job's state: finished (its Complete or Failed condition),
// executing (not suspended), or waiting to be resumed.
func runOf(job *batchv1.Job) *run {
	out := &run{name: job.Name, started: job.CreationTimestamp.Time}
	if job.Status.StartTime != nil {
		out.started = job.Status.StartTime.Time
	}
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue || (c.Type != batchv1.JobComplete && c.Type != batchv1.JobFailed) {
			continue
		}
		out.done, out.succeeded, out.finished = true, c.Type == batchv1.JobComplete, c.LastTransitionTime.Time
		if out.succeeded && job.Status.CompletionTime != nil {
			out.finished = job.Status.CompletionTime.Time
		}
		if !out.succeeded {
			out.message = c.Reason + ": " + c.Message
			if c.Reason == "" || c.Message == "" {
				out.message = c.Reason + c.Message
			}
		}
		return out
	}
	out.executing = job.Spec.Suspend == nil || !*job.Spec.Suspend
	return out
}

// observePlacement records where a finished Job's pod ran (its succeeded
// pod, else any that was scheduled), and a DataBackup's location.
func (r *Reconciler) observePlacement(ctx context.Context, s *scope, job *batchv1.Job) error {
	pod, err := r.ranPod(ctx, job)
	if err != nil || pod == nil {
		s.obs.infos = infosOf(s.op, "")
		return err
	}
	node := &corev1.Node{}
	found, err := optional.Get(ctx, r.Client, types.NamespacedName{Name: pod.Spec.NodeName}, node)
	if err != nil {
		return fmt.Errorf("reading node %s where Job %s ran: %w", pod.Spec.NodeName, job.Name, err)
	}
	if !found {
		node.Name = pod.Spec.NodeName // gone since: its name is all there is
	}
	s.obs.nodeAffinity = nodeAffinityOf(pod, node, dataflowLabels(s.op.GetAnnotations()))
	s.obs.infos = infosOf(s.op, node.Name)
	return nil
}

// ranPod is the Job's pod that did the work: the latest succeeded one,
// else the latest that was scheduled; nil when none was.
func (r *Reconciler) ranPod(ctx context.Context, job *batchv1.Job) (*corev1.Pod, error) {
	if job.Spec.Selector == nil {
		return nil, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("the selector of Job %s: %w", job.Name, err)
	}
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, fmt.Errorf("listing the pods of Job %s: %w", job.Name, err)
	}
	var best *corev1.Pod
	better := func(p *corev1.Pod) bool {
		switch {
		case best == nil:
			return true
		case (p.Status.Phase == corev1.PodSucceeded) != (best.Status.Phase == corev1.PodSucceeded):
			return p.Status.Phase == corev1.PodSucceeded
		}
		return best.CreationTimestamp.Before(&p.CreationTimestamp)
	}
	for i := range pods.Items {
		if p := &pods.Items[i]; p.Spec.NodeName != "" && better(p) {
			best = p
		}
	}
	return best, nil
}

// infosOf are the results a finished operation records: a DataBackup's
// location (BackupLocationPath; BackupLocationNodeName, the node for a
// local:// backup and "NA" for a pvc:// one, as Fluid reports it).
func infosOf(op datav1alpha1.OperationObject, node string) map[string]string {
	b, ok := op.(*datav1alpha1.DataBackup)
	if !ok {
		return nil
	}
	where := "NA"
	if strings.HasPrefix(b.Spec.BackupPath, "local://") && node != "" {
		where = node
	}
	return map[string]string{datav1alpha1.BackupLocationPath: b.Spec.BackupPath, datav1alpha1.BackupLocationNodeName: where}
}

// scheduled is when a Cron run was scheduled: the CronJob controller's
// annotation, else the Job's creation.
func scheduled(job *batchv1.Job) time.Time {
	if v, ok := job.Annotations[batchv1.CronJobScheduledTimestampAnnotation]; ok {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t
		}
	}
	return job.CreationTimestamp.Time
}
