package reference

import (
	"github.com/sluice-data/sluice/controller/internal/rootcond"

	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// verdict is one condition's value.
type verdict = rootcond.Verdict

func yes(reason, format string, args ...any) *verdict {
	return &verdict{Status: metav1.ConditionTrue, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

func no(reason, format string, args ...any) *verdict {
	return &verdict{Status: metav1.ConditionFalse, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// observations are what one reconcile saw: the input of runtimeStatus. A
// nil verdict was not decided this round, and the status keeps what it
// said.
type observations struct {
	now        time.Time
	generation int64
	// conditions are the root conditions decided, by type.
	conditions map[string]*verdict
	// inUse names the Pods that hold the runtime's deletion back.
	inUse []string
	// target is the referenced runtime's status, copied while bound.
	target *datav1alpha1.RuntimeStatus
	// mounts are the reference dataset's mounts (its dataset:// mount),
	// recorded so that a deletion finds the referenced Dataset when the
	// reference dataset is gone.
	mounts []datav1alpha1.Mount
}

func (o *observations) set(typ string, v *verdict) {
	if o.conditions == nil {
		o.conditions = map[string]*verdict{}
	}
	o.conditions[typ] = v
}

// runtimeStatus is the runtime's status after a reconcile that observed o,
// starting from prev (as stored): the referenced runtime's phases, counts,
// cache states and cacheAffinity while bound, the mounts, the root
// conditions and Ready summarising them.
func runtimeStatus(prev *datav1alpha1.RuntimeStatus, o observations) *datav1alpha1.RuntimeStatus {
	s := prev.DeepCopy()
	if t := o.target; t != nil {
		conds, mounts := s.Conditions, s.Mounts
		*s = *t.DeepCopy()
		s.Conditions, s.Mounts = conds, mounts
	}
	if o.mounts != nil {
		s.Mounts = o.mounts
	}
	s.ObservedGeneration = o.generation
	s.Conditions = conditions(s.Conditions, o)
	return s
}

// conditions are prev with the root conditions o decides, those never
// decided Unknown (Pending), and Ready summarising them.
func conditions(prev []metav1.Condition, o observations) []metav1.Condition {
	r := rootcond.Round{Conds: slices.Clone(prev), Generation: o.generation, Now: o.now}
	ready := r.Roots(rootConditions, func(typ string) (verdict, bool) {
		if d := o.conditions[typ]; d != nil {
			return *d, true
		}
		return verdict{}, false
	})
	switch {
	case o.inUse != nil:
		ready = no(ReasonInUse, "deletion waits for Pods using the reference dataset to finish: %s", strings.Join(o.inUse, ", "))
	case ready == nil:
		ready = yes(ReasonBound, "%s", messageOr(o.conditions[ConditionVolumeBound], "bound"))
	}
	r.Set(ConditionReady, *ready)
	return r.Conds
}

// messageOr is v's message, or def without a verdict.
func messageOr(v *verdict, def string) string {
	if v == nil {
		return def
	}
	return v.Message
}

// boundDatasetStatus is the reference dataset's status while the
// referenced Dataset serves it: that Dataset's phase (Bound, or
// DataMigrating), cache states, UFS figures and HCFS, the runtime in
// status.runtimes, its mounts as specified, and Ready. Its own conditions
// and datasetRef stay its own.
func boundDatasetStatus(ds *datav1alpha1.Dataset, rt *datav1alpha1.ThinRuntime, target *datav1alpha1.Dataset) datav1alpha1.DatasetStatus {
	s := *ds.Status.DeepCopy()
	t := target.Status.DeepCopy()
	s.Phase = t.Phase
	s.CacheStates, s.UfsTotal, s.FileNum, s.HCFSStatus = t.CacheStates, t.UfsTotal, t.FileNum, t.HCFSStatus
	s.Runtimes = []datav1alpha1.Runtime{runtimeEntry(rt)}
	s.Mounts = ds.Spec.Mounts
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonBound,
		Message: fmt.Sprintf("bound to the cache of Dataset %s/%s through ThinRuntime %s", target.Namespace, target.Name, rt.Name), ObservedGeneration: ds.Generation})
	return s
}

// notBoundDatasetStatus is the reference dataset's status while the
// referenced Dataset does not serve it: NotBound, without cache states or
// mounts, Ready=False with the reason; status.runtimes keeps the runtime
// once it served the Dataset (its PV and PVC stay, and the Dataset's
// deletion must delete it).
func notBoundDatasetStatus(ds *datav1alpha1.Dataset, v verdict) datav1alpha1.DatasetStatus {
	s := *ds.Status.DeepCopy()
	s.Phase, s.CacheStates, s.Mounts = datav1alpha1.NotBoundDatasetPhase, nil, nil
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: v.Reason,
		Message: datav1alpha1.ConditionMessage(v.Message), ObservedGeneration: ds.Generation})
	return s
}

// unboundDatasetStatus is the Dataset's status once its runtime is
// deleted: NotBound, without runtimes, cache states or mounts.
func unboundDatasetStatus(ds *datav1alpha1.Dataset, rt *datav1alpha1.ThinRuntime) datav1alpha1.DatasetStatus {
	s := *ds.Status.DeepCopy()
	s.Phase, s.Runtimes, s.CacheStates, s.Mounts = datav1alpha1.NotBoundDatasetPhase, nil, nil, nil
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonRuntimeDeleted,
		Message: fmt.Sprintf("ThinRuntime %s was deleted", rt.Name), ObservedGeneration: ds.Generation})
	return s
}

func runtimeEntry(rt *datav1alpha1.ThinRuntime) datav1alpha1.Runtime {
	return datav1alpha1.Runtime{Name: rt.Name, Namespace: rt.Namespace, Type: runtimeType, Category: datav1alpha1.AccelerateCategory}
}

// runtimeType is the type status.runtimes records for the ThinRuntime of a
// reference dataset (the Thin engine's).
const runtimeType = "thin"
