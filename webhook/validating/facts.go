package validating

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/trust/guards"
)

// Facts are what the Go side knows about the admitted object and its
// surroundings; policies read them as input.facts.
type Facts struct {
	// Data operations.
	Target   *Target   `json:"target,omitempty"`
	RunAfter *RunAfter `json:"runAfter,omitempty"`
	Schedule *Schedule `json:"schedule,omitempty"`

	// Runtimes.
	Levels                 []LevelFacts     `json:"levels,omitempty"`
	OldLevels              []LevelFacts     `json:"oldLevels,omitempty"`
	WorkerMemoryLimitBytes int64            `json:"workerMemoryLimitBytes,omitempty"`
	Replicas               int64            `json:"replicas"`
	Bound                  bool             `json:"bound"`
	SameNameRuntimes       []string         `json:"sameNameRuntimes,omitempty"`
	NamespaceUsage         map[string]int64 `json:"namespaceUsage,omitempty"`
	// OptionCaches are the caches the runtime's options define beyond its
	// tieredstore, which its budget counts too (guards_options.go).
	OptionCaches []OptionCacheFacts `json:"optionCaches,omitempty"`

	// Runtimes, ThinRuntimeProfiles and Datasets: the refused and warned
	// fields the object sets, from its engine's field table
	// (engines/registry).
	Fields []FieldFact `json:"fields,omitempty"`
	// DatasetReference is, for a runtime, the dataset:// mount point of
	// the Dataset of its name when that is a reference dataset.
	DatasetReference string `json:"datasetReference,omitempty"`

	// Datasets. MountsChanged: the effective mounts change (spec.mounts,
	// sharedOptions or sharedEncryptOptions). MountEdits are the changes
	// of a bound Dataset's mounts its engine cannot apply
	// (engines.MountChecker), each naming its field.
	Holders       []string          `json:"holders,omitempty"`
	MountsChanged bool              `json:"mountsChanged"`
	Mounts        []MountFacts      `json:"mounts,omitempty"`
	MountEdits    []engines.Finding `json:"mountEdits,omitempty"`
	// Reference is what a reference dataset's dataset:// mount leads to;
	// nil for other Datasets. WasReference says whether the Dataset was a
	// reference dataset before an UPDATE.
	Reference    *ReferenceFacts `json:"reference,omitempty"`
	WasReference bool            `json:"wasReference"`

	// Runtimes and Datasets: the values the default guards judge.
	Guards guards.Facts `json:"guards"`
}

// Target is the Dataset a data operation works on.
type Target struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// RuntimeType is the type of the runtime the Dataset is bound to (its
	// engine), "" when it is not bound or does not exist.
	RuntimeType string `json:"runtimeType,omitempty"`
}

// RunAfter is what the operation's runAfter leads to.
type RunAfter struct {
	// Exists says whether the operation it names exists.
	Exists bool `json:"exists"`
	// Cycle is a chain of runAfter (and affinityStrategy.dependOn)
	// references from this operation back to itself, "Kind name" each,
	// starting and ending with it; empty when there is none.
	Cycle []string `json:"cycle,omitempty"`
}

// Schedule is a Cron operation's spec.schedule as parsed.
type Schedule struct {
	// Error says why it is not a schedule a CronJob accepts; "" when it is.
	Error string `json:"error"`
}

// LevelFacts is one tieredstore level with its quantities parsed.
type LevelFacts struct {
	Index          int      `json:"index"`
	Medium         string   `json:"medium"`
	Paths          []string `json:"paths"`
	QuotaBytes     int64    `json:"quotaBytes"`
	QuotaListBytes []int64  `json:"quotaListBytes"`
	// QuotaField and QuotaError name a quantity that does not parse.
	QuotaField string `json:"quotaField"`
	QuotaError string `json:"quotaError"`
	High       string `json:"high"`
	Low        string `json:"low"`
}

// MountFacts is one Dataset mount.
type MountFacts struct {
	MountPoint string `json:"mountPoint"`
	Scheme     string `json:"scheme"`
}

// levelFacts parses a tieredstore.
func levelFacts(ts datav1alpha1.TieredStore) []LevelFacts {
	out := make([]LevelFacts, 0, len(ts.Levels))
	for i, l := range ts.Levels {
		lf := LevelFacts{Index: i, Medium: string(l.MediumType), Paths: datav1alpha1.SplitList(l.Path), High: l.High, Low: l.Low, QuotaListBytes: []int64{}}
		if l.Quota != nil {
			lf.QuotaBytes = l.Quota.Value()
		}
		for j, q := range datav1alpha1.SplitList(l.QuotaList) {
			v, err := resource.ParseQuantity(q)
			if err != nil {
				lf.QuotaField, lf.QuotaError = fmt.Sprintf("quotaList[%d]", j), fmt.Sprintf("%q is not a quantity: %v", q, err)
				break
			}
			lf.QuotaListBytes = append(lf.QuotaListBytes, v.Value())
		}
		if l.Quota == nil && l.QuotaList == "" && lf.QuotaError == "" {
			lf.QuotaField, lf.QuotaError = "quota", "quota or quotaList must be set"
		}
		out = append(out, lf)
	}
	return out
}

// runtimeParts returns a runtime's replicas, tieredstore and worker memory
// limit (0 when unset); ok is false when obj is not a runtime.
func runtimeParts(obj client.Object) (replicas int32, ts datav1alpha1.TieredStore, memLimit int64, ok bool) {
	r, ok := obj.(datav1alpha1.RuntimeObject)
	if !ok {
		return 0, datav1alpha1.TieredStore{}, 0, false
	}
	if q, set := r.GetWorkerMemoryLimit(); set {
		memLimit = q.Value()
	}
	return r.GetReplicas(), r.GetTieredStore(), memLimit, true
}

// usage adds a runtime's cache (quota x replicas per medium, and what its
// options' caches add: optionCaches) to u.
func usage(u map[string]int64, obj client.Object) {
	replicas, ts, _, ok := runtimeParts(obj)
	if !ok {
		return
	}
	for _, l := range levelFacts(ts) {
		u[l.Medium] += levelBytes(l) * int64(replicas)
	}
	for _, c := range optionCaches(obj) {
		u[c.Medium] += c.Bytes
	}
}

func mountFacts(ms []datav1alpha1.Mount) []MountFacts {
	out := make([]MountFacts, len(ms))
	for i, m := range ms {
		scheme, _, found := strings.Cut(m.MountPoint, "://")
		if !found {
			scheme = ""
		}
		out[i] = MountFacts{MountPoint: m.MountPoint, Scheme: strings.TrimSpace(scheme)}
	}
	return out
}

// mountsChanged says whether the Dataset's effective mounts change.
func mountsChanged(old, cur *datav1alpha1.Dataset) bool {
	return !engines.SameMounts(engines.EffectiveMounts(old), engines.EffectiveMounts(cur))
}
