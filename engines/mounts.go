package engines

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// What a change of a bound Dataset's mounts does. The release is upgraded
// with values computed from the new mounts, as for any spec change; what
// the running components need besides is the engine's: its chart restarts
// the pods that read the mounts only at start (a checksum of their
// configuration on the pod template), or runs a Job that applies them to
// the running cache (Components.MountJob), and its MountChecker refuses
// the changes it cannot apply at all. The controller calls the mounts
// applied once the workloads it waits for were rendered for them
// (MountsAnnotation), have rolled out, and the Job succeeded.

// MountsAnnotation is set by every engine chart on its master and worker
// StatefulSets (on the object, not on its pod template) to the
// MountsDigest of the Dataset mounts the release was rendered for: the
// controller reads it to know that it sees the workloads as upgraded.
const MountsAnnotation = "data.sluice.io/mounts"

// EffectiveMounts are ds's mounts as engines apply them: each with the
// Dataset's sharedOptions under its own options, and its
// sharedEncryptOptions before its own encryptOptions (a mount's own of a
// name replacing the shared one, in place). Empty options are nil, so that
// the result compares equal to itself after a round trip through the API.
// A runtime records them in status.mounts once applied.
func EffectiveMounts(ds *datav1alpha1.Dataset) []datav1alpha1.Mount {
	if len(ds.Spec.Mounts) == 0 {
		return nil
	}
	out := make([]datav1alpha1.Mount, len(ds.Spec.Mounts))
	for i, m := range ds.Spec.Mounts {
		m = *m.DeepCopy()
		m.Options = Merge(ds.Spec.SharedOptions, m.Options)
		m.EncryptOptions = mergeEncryptOptions(ds.Spec.SharedEncryptOptions, m.EncryptOptions)
		out[i] = normalMount(m)
	}
	return out
}

// mergeEncryptOptions lists shared, then own; an own option of a shared
// option's name replaces it where the shared one stood.
func mergeEncryptOptions(shared, own []datav1alpha1.EncryptOption) []datav1alpha1.EncryptOption {
	out := slices.Clone(shared)
	for _, o := range own {
		if i := slices.IndexFunc(out, func(s datav1alpha1.EncryptOption) bool { return s.Name == o.Name }); i >= 0 {
			out[i] = o
			continue
		}
		out = append(out, o)
	}
	return out
}

func normalMount(m datav1alpha1.Mount) datav1alpha1.Mount {
	if len(m.Options) == 0 {
		m.Options = nil
	}
	if len(m.EncryptOptions) == 0 {
		m.EncryptOptions = nil
	}
	return m
}

// SameMounts says whether two lists of mounts are the same (empty options
// and nil ones alike).
func SameMounts(a, b []datav1alpha1.Mount) bool {
	return slices.EqualFunc(a, b, func(x, y datav1alpha1.Mount) bool {
		x, y = normalMount(x), normalMount(y)
		return x.MountPoint == y.MountPoint && x.Name == y.Name && x.Path == y.Path && x.ReadOnly == y.ReadOnly &&
			x.Shared == y.Shared && maps.Equal(x.Options, y.Options) && slices.Equal(x.EncryptOptions, y.EncryptOptions)
	})
}

// MountsDigest identifies the Dataset's effective mounts, with its
// namespace and name (so that two Datasets' mount Jobs never share a name):
// 16 hex digits of their SHA-256. Charts carry it in MountsAnnotation and in
// the name of their mount Job (MountJobName).
func MountsDigest(ds *datav1alpha1.Dataset) string {
	data, _ := json.Marshal(struct {
		Namespace string               `json:"namespace"`
		Name      string               `json:"name"`
		Mounts    []datav1alpha1.Mount `json:"mounts"`
	}{ds.Namespace, ds.Name, EffectiveMounts(ds)})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// MountJobName is the name of the Job with which runtime name's release
// applies the mounts of digest (MountsDigest) to its running cache:
// <name>-mounts-<first 10 digits>, name shortened so that the Job's name
// stays a 63-character label value (its pods carry it). A new digest is a
// new Job: a Job's pod template cannot change.
func MountJobName(name, digest string) string {
	const suffix = "-mounts-"
	d := digest[:min(len(digest), 10)]
	return name[:min(len(name), 63-len(suffix)-len(d))] + suffix + d
}

// OptionPath is the field that sets option key for mount i of ds: the
// mount's options, else the Dataset's sharedOptions, else (the option
// is gone) the mount's options.
func OptionPath(ds *datav1alpha1.Dataset, i int, key string) string {
	if i < len(ds.Spec.Mounts) {
		if _, ok := ds.Spec.Mounts[i].Options[key]; ok {
			return fieldIndex("spec.mounts", i) + ".options[" + quote(key) + "]"
		}
	}
	if _, ok := ds.Spec.SharedOptions[key]; ok {
		return "spec.sharedOptions[" + quote(key) + "]"
	}
	return fieldIndex("spec.mounts", i) + ".options[" + quote(key) + "]"
}

// EncryptOptionPath is the field that sets encrypt option name for mount i
// of ds: the mount's encryptOptions, else the Dataset's
// sharedEncryptOptions, else (gone) the mount's encryptOptions.
func EncryptOptionPath(ds *datav1alpha1.Dataset, i int, name string) string {
	has := func(eos []datav1alpha1.EncryptOption) int {
		return slices.IndexFunc(eos, func(e datav1alpha1.EncryptOption) bool { return e.Name == name })
	}
	if i < len(ds.Spec.Mounts) {
		if j := has(ds.Spec.Mounts[i].EncryptOptions); j >= 0 {
			return fieldIndex(fieldIndex("spec.mounts", i)+".encryptOptions", j)
		}
	}
	if j := has(ds.Spec.SharedEncryptOptions); j >= 0 {
		return fieldIndex("spec.sharedEncryptOptions", j)
	}
	return fieldIndex("spec.mounts", i) + ".encryptOptions"
}

func fieldIndex(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

func quote(s string) string { return strconv.Quote(s) }
