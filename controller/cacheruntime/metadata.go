package cacheruntime

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/workloads/ufsmeta"
)

// Event reasons of metadata sync.
const (
	// ReasonMetadataSyncFailed: a metadata Job failed; the Dataset's
	// ufsTotal and fileNum stay as they were until the next one.
	ReasonMetadataSyncFailed = "MetadataSyncFailed"
	// ReasonMetadataJobConflict: a Job of the metadata Job's name exists
	// that Sluice did not create; it is left alone and no count runs.
	ReasonMetadataJobConflict = "MetadataJobConflict"
)

// syncMetadata learns the Dataset's usage of its under storage (ufsTotal
// and fileNum) as the engine says (engines.Metadata), while the runtime's
// metadata sync is on: from its pods' metrics pages at every refresh
// (syncUsage), or by the Dataset's metadata Job (runMetadataJob). What it
// learns is an observation (usage, calculating), written with the rest of
// the Dataset's status at the end of the reconcile. What fails to be
// learnt never stops the reconcile: the figures stay as they were, and a
// failed Job says why in a Warning event.
func (r *Reconciler) syncMetadata(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	src := s.eng.UFSMetadata(s.rt)
	key := client.ObjectKeyFromObject(s.ds)
	walk := src.Sync && src.Pages == nil && s.ds.DeletionTimestamp.IsZero()
	if !walk {
		// A Job left from before (autoSync turned off, metrics turned on)
		// or of a Dataset being deleted goes.
		if err := r.deleteMetadataJob(ctx, s.ds, s.rt); err != nil {
			return ctrl.Result{}, false, err
		}
	}
	switch {
	case !src.Sync:
		r.metadata.forget(key)
		r.usage.forget(key)
		return ctrl.Result{}, true, nil
	case src.Pages != nil:
		return ctrl.Result{}, true, r.syncUsage(ctx, s, src.Pages)
	case !walk:
		return ctrl.Result{}, true, nil
	}
	return r.runMetadataJob(ctx, s)
}

// runMetadataJob keeps at most one metadata Job per Dataset: with none, it
// starts one when one is due (metadataDue), showing Calculating while the
// usage is unknown; with one that finished, it observes its result, which
// the reconcile writes and then deletes the Job (settleCount), or reports
// its failure and deletes it. A Job of the name that is not the runtime's
// (ufsmeta.Owns) is never touched.
func (r *Reconciler) runMetadataJob(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	key := client.ObjectKeyFromObject(s.ds)
	job, err := r.metadataJob(ctx, s.ds)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	rec, seen := r.metadata.get(key)
	now := r.clock()
	if job == nil || job.UID == rec.handled {
		due, next := metadataDue(now, rec, seen, s.ds, r.dataLoads(ctx, s.ds), r.MetadataRefresh)
		if !seen && !due {
			r.metadata.update(key, func(m *metadataRecord) { m.at, m.generation = now, s.ds.Generation })
		}
		s.metadataDue = next
		if !due || job != nil {
			return ctrl.Result{}, true, nil
		}
		return ctrl.Result{}, true, r.startMetadataJob(ctx, s)
	}
	if !ufsmeta.Owns(job, s.rt.GetUID()) {
		r.event(s.rt, corev1.EventTypeWarning, ReasonMetadataJobConflict, "SyncMetadata",
			"Job %s/%s exists and was not created by Sluice for this runtime; the Dataset's files are not counted until it is renamed or deleted", job.Namespace, job.Name)
		return ctrl.Result{}, true, nil
	}
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{ufsmeta.LabelComponent: ufsmeta.Component}); err != nil {
		return ctrl.Result{}, false, err
	}
	out := ufsmeta.OutcomeOf(job, pods.Items)
	switch out.State {
	case ufsmeta.Running:
		return ctrl.Result{}, true, nil
	case ufsmeta.Succeeded:
		ctrl.LoggerFrom(ctx).Info("dataset metadata counted", "job", job.Name, "bytes", out.Usage.Bytes, "files", out.Usage.Files)
		s.obs.usage, s.counted = &out.Usage, &countedJob{job: job, at: now}
		if r.MetadataRefresh > 0 {
			s.metadataDue = now.Add(r.MetadataRefresh)
		}
		return ctrl.Result{}, true, nil
	case ufsmeta.Failed:
		r.event(s.rt, corev1.EventTypeWarning, ReasonMetadataSyncFailed, "SyncMetadata", "counting the files of Dataset %s: %s", key, out.Reason)
		r.metadata.update(key, func(m *metadataRecord) { m.retryAt, m.handled = now.Add(metadataRetry), job.UID })
		s.metadataDue = now.Add(metadataRetry)
	}
	return ctrl.Result{}, true, r.deleteJob(ctx, job)
}

// countedJob is a metadata Job that succeeded, read at at, whose count the
// reconcile writes to the Dataset's status.
type countedJob struct {
	job *batchv1.Job
	at  time.Time
}

// settleCount, once the Dataset's status holds the count of s.counted,
// records it as the Dataset's last count and deletes the Job: a count that
// failed to be written is read from the Job again by the next reconcile.
func (r *Reconciler) settleCount(ctx context.Context, s *scope) error {
	c := s.counted
	r.metadata.update(client.ObjectKeyFromObject(s.ds), func(m *metadataRecord) {
		m.at, m.generation, m.retryAt, m.handled, m.counted = c.at, s.ds.Generation, time.Time{}, c.job.UID, s.ds.UID
	})
	return r.deleteJob(ctx, c.job)
}

// startMetadataJob creates the Dataset's metadata Job, owned by the
// runtime, and has the Dataset show Calculating while the usage is
// unknown (observations.calculating). Without an
// image (MetadataJob.Image) no Job can run: a Warning event says so, again
// after metadataRetry.
func (r *Reconciler) startMetadataJob(ctx context.Context, s *scope) error {
	if r.MetadataJob.Image == "" {
		r.event(s.rt, corev1.EventTypeWarning, ReasonMetadataSyncFailed, "SyncMetadata",
			"the files of Dataset %s are not counted: the controller runs without a metadata Job image (sluice controller --sluice-image)", client.ObjectKeyFromObject(s.ds))
		now := r.clock()
		r.metadata.update(client.ObjectKeyFromObject(s.ds), func(m *metadataRecord) { m.retryAt = now.Add(metadataRetry) })
		s.metadataDue = now.Add(metadataRetry)
		return nil
	}
	gvk, err := apiutil.GVKForObject(s.rt, r.Client.Scheme())
	if err != nil {
		return err
	}
	owner := metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: s.rt.GetName(), UID: s.rt.GetUID()}
	job := ufsmeta.Job(s.ds, owner, r.MetadataJob)
	if err := r.Client.Create(ctx, job); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the metadata Job %s/%s: %w", job.Namespace, job.Name, err)
	}
	ctrl.LoggerFrom(ctx).Info("counting the dataset's files", "job", job.Name)
	s.obs.calculating = true
	return nil
}

// metadataJob is the Job of the Dataset's metadata Job name, nil when there
// is none.
func (r *Reconciler) metadataJob(ctx context.Context, ds *datav1alpha1.Dataset) (*batchv1.Job, error) {
	job := &batchv1.Job{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: ds.Namespace, Name: ufsmeta.JobName(ds)}, job)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return job, err
}

// deleteMetadataJob deletes the Dataset's metadata Job if the runtime owns
// one.
func (r *Reconciler) deleteMetadataJob(ctx context.Context, ds *datav1alpha1.Dataset, rt client.Object) error {
	job, err := r.metadataJob(ctx, ds)
	if err != nil || job == nil || !ufsmeta.Owns(job, rt.GetUID()) {
		return err
	}
	return r.deleteJob(ctx, job)
}

// deleteMetadataJobs deletes every metadata Job the runtime owns (its
// Dataset may be gone already, and with it the UID a long name's Job is
// named by).
func (r *Reconciler) deleteMetadataJobs(ctx context.Context, rt client.Object) error {
	jobs := &batchv1.JobList{}
	if err := r.Client.List(ctx, jobs, client.InNamespace(rt.GetNamespace()), client.MatchingLabels{ufsmeta.LabelComponent: ufsmeta.Component}); err != nil {
		return err
	}
	for i := range jobs.Items {
		if ufsmeta.Owns(&jobs.Items[i], rt.GetUID()) {
			if err := r.deleteJob(ctx, &jobs.Items[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteJob deletes a metadata Job (that UID, as read) and, in the
// background, its pods.
func (r *Reconciler) deleteJob(ctx context.Context, job *batchv1.Job) error {
	err := r.Client.Delete(ctx, job, client.Preconditions{UID: ptr.To(job.UID)}, client.PropagationPolicy(metav1.DeletePropagationBackground))
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// dataLoads are the DataLoads of the Dataset's namespace (those of the
// Dataset with loadMetadata are due a count once they complete); a failed
// list is logged and counts as none.
func (r *Reconciler) dataLoads(ctx context.Context, ds *datav1alpha1.Dataset) []datav1alpha1.DataLoad {
	list := &datav1alpha1.DataLoadList{}
	if err := r.Client.List(ctx, list, client.InNamespace(ds.Namespace)); err != nil {
		ctrl.LoggerFrom(ctx).Info("listing DataLoads for metadata sync", "error", err.Error())
		return nil
	}
	return list.Items
}
