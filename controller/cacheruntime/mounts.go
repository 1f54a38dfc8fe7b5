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

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
)

// A change of a bound Dataset's mounts (spec.mounts, sharedOptions,
// sharedEncryptOptions) reaches the engine as any spec change does: its
// values change and the release is upgraded. The runtime's status.mounts
// record the effective mounts it has applied (engines.EffectiveMounts);
// while the Dataset's differ, the change is being applied and the Dataset
// is Updating, until the workloads the reconciler waits for show the new
// mounts and have rolled out, and the engine's mount Job for them (if it
// runs one) has succeeded. Then the runtime records them and the Dataset is
// Bound again.

// mountSync is what a reconcile found of the Dataset's mounts.
type mountSync struct {
	// desired are the Dataset's effective mounts, spec its spec.mounts, as
	// this reconcile read them.
	desired, spec []datav1alpha1.Mount
	// pending: the Dataset is bound to the runtime and its mounts differ
	// from the ones the runtime has applied.
	pending bool
	// waiting says what a pending change waits for; failed why the engine
	// could not apply it. Both "" when it is applied.
	waiting, failed string
	// record: the runtime's status.mounts become desired (the Dataset is
	// bound now, or a pending change is applied, or the runtime was bound
	// before it recorded its mounts).
	record bool
}

// applied says whether a pending change is applied.
func (m *mountSync) applied() bool { return m.waiting == "" && m.failed == "" }

// observeMounts finds whether the Dataset's mounts changed since the
// runtime applied them and, if so, whether this engine has applied the
// change to the workloads c (mountsApplied).
func (r *Reconciler) observeMounts(ctx context.Context, s *scope, c *componentCounts) error {
	m := &mountSync{desired: engines.EffectiveMounts(s.ds), spec: s.ds.Spec.Mounts}
	s.obs.mounts = m
	if !boundTo(s.ds, s.rt, r.Engine.Type()) {
		return nil // bindDataset records the mounts when it binds
	}
	applied := s.rt.GetRuntimeStatus().Mounts
	switch {
	case applied == nil:
		// Bound before the runtime recorded what it applied: what it
		// serves is taken to be the Dataset's mounts.
		m.record = true
		return nil
	case engines.SameMounts(applied, m.desired):
		return nil
	}
	m.pending = true
	var err error
	m.waiting, m.failed, err = r.mountsApplied(ctx, s, c)
	m.record = err == nil && m.applied()
	return err
}

// mountsApplied says what a change of the Dataset's mounts still waits for,
// or why it failed: the release just upgraded (the cache may show its
// workloads as they were), then each master and worker StatefulSet that is
// not yet rendered for the new mounts (engines.MountsAnnotation) or is
// rolling out, then the engine's mount Job for them, which must succeed.
func (r *Reconciler) mountsApplied(ctx context.Context, s *scope, c *componentCounts) (waiting, failed string, err error) {
	digest := engines.MountsDigest(s.ds)
	if s.act != helm.ActionNone {
		return "the engine's release, just upgraded", "", nil
	}
	var waits []string
	for _, w := range []*counts{c.masters, c.workers} {
		switch {
		case w == nil:
		case w.mounts != digest:
			waits = append(waits, "StatefulSet "+w.name+" to be upgraded")
		case w.rolling:
			waits = append(waits, "StatefulSet "+w.name+" to roll out")
		}
	}
	if len(waits) > 0 {
		return strings.Join(waits, ", "), "", nil
	}
	if !s.eng.Components(s.rt).MountJob {
		return "", "", nil
	}
	name := engines.MountJobName(s.rt.GetName(), digest)
	job := &batchv1.Job{}
	switch err := r.Client.Get(ctx, types.NamespacedName{Namespace: s.rt.GetNamespace(), Name: name}, job); {
	case apierrors.IsNotFound(err):
		return "Job " + name, "", nil
	case err != nil:
		return "", "", fmt.Errorf("reading the mount Job %s: %w", name, err)
	}
	if job.Annotations[engines.MountsAnnotation] != digest {
		return "Job " + name, "", nil
	}
	if c := jobCondition(job, batchv1.JobFailed); c != nil {
		return "", fmt.Sprintf("Job %s failed: %s", name, c.Message), nil
	}
	if jobCondition(job, batchv1.JobComplete) == nil {
		return "Job " + name + " to finish", "", nil
	}
	return "", "", nil
}

// jobCondition is the Job's condition of type t when it is True, else nil.
func jobCondition(job *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	i := slices.IndexFunc(job.Status.Conditions, func(c batchv1.JobCondition) bool { return c.Type == t && c.Status == corev1.ConditionTrue })
	if i < 0 {
		return nil
	}
	return &job.Status.Conditions[i]
}

// boundTo says whether the Dataset's status lists rt as its runtime.
func boundTo(ds *datav1alpha1.Dataset, rt client.Object, runtimeType string) bool {
	return slices.ContainsFunc(ds.Status.Runtimes, func(r datav1alpha1.Runtime) bool {
		return r.Name == rt.GetName() && r.Type == runtimeType
	})
}

// refusedMountEdit is an InvalidSpec error naming each change of the bound
// Dataset's mounts that eng cannot apply (engines.MountChecker), nil when
// there is none or eng applies every change. The webhook denies the same
// changes (rule mount-edit); this keeps one admitted while it was down
// from being applied in part.
func refusedMountEdit(eng engines.Engine, ds *datav1alpha1.Dataset, rt datav1alpha1.RuntimeObject, runtimeType string) error {
	mc, ok := eng.(engines.MountChecker)
	applied := rt.GetRuntimeStatus().Mounts
	if !ok || applied == nil || !boundTo(ds, rt, runtimeType) {
		return nil
	}
	var msgs []string
	for _, f := range mc.CheckMountEdit(applied, ds) {
		if f.Support == engines.Refused {
			msgs = append(msgs, f.String())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return engines.Invalid("dataset %s/%s: %s", ds.Namespace, ds.Name, strings.Join(msgs, "; "))
}
