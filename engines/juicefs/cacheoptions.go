package juicefs

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Cache options. A component's options (spec.worker.options,
// spec.fuse.options) may give its cache other directories and another
// size than the tier's, as Fluid lets them (its JuiceFS docs set
// cache-dir and cache-size there). What they name is judged like the
// tier: a cache-dir directory that the engine backs with a hostPath is a
// host path (the validating webhook's tieredstore-path rule), and the
// cache they size counts in the namespace's cache budget. A Dataset's
// options may not name them (DatasetFields).

// CacheOptionKinds are the options whose value the engine turns into a
// cache directory or size, by what the value is: "dir" (a ':'-separated
// list of directories, cacheVolumes) or "size" (MiB, or a number with a
// unit). TestTierOptionsAreJudged checks that every flag the engine
// derives from spec.tieredstore, and every option that makes a host
// directory, is here or in boundedTierOptions.
var CacheOptionKinds = map[string]string{"cache-dir": "dir", "cache-size": "size"}

// boundedTierOptions are the flags derived from spec.tieredstore that
// name neither a directory nor a size, with why they need no judging.
var boundedTierOptions = map[string]string{
	"free-space-ratio": "a ratio of the cache disk kept free: it only shrinks a cache that cache-size bounds",
}

// defaultCacheBytes is JuiceFS's --cache-size when none is given
// (100 GiB, JuiceFS v1.2.1 cmd/flags.go).
const defaultCacheBytes = int64(100) << 30

// OptionCache is the cache one component's options define: the host
// directories they name and the cache's size per pod.
type OptionCache struct {
	// Component is spec.worker or spec.fuse.
	Component string
	// HostDirs are the directories of its cache-dir option that the
	// engine backs with the runtime's own directory of the node (a
	// hostPath): those that are neither a tier directory nor a directory
	// the component mounts itself. Judged as tieredstore paths,
	// at DirField, Component+`.options["cache-dir"]`.
	HostDirs []string
	DirField string
	// Bytes is the component's cache size per pod when its options set
	// cache-size or cache-dir (Defined): cache-size's, else the tier's
	// quota, else JuiceFS's default (100 GiB). SizeField names the option
	// it comes from.
	Bytes     int64
	SizeField string
	Defined   bool
}

// OptionField is the field path of option name of component
// (spec.worker or spec.fuse), as Values names it in its errors.
func OptionField(component, name string) string {
	return component + ".options[\"" + name + "\"]"
}

// OptionCaches are the caches the runtime's worker and FUSE options
// define, as Values would render them. A tieredstore Values refuses is
// read as no tier, so that every option directory counts as a host one.
func OptionCaches(rt *datav1alpha1.JuiceFSRuntime) []OptionCache {
	t, err := tierOf(rt.Spec.TieredStore, rt.Namespace, rt.Name)
	if err != nil {
		t = tier{namespace: rt.Namespace, name: rt.Name}
	}
	tierBytes := t.quotaMiB << 20
	var out []OptionCache
	for _, c := range []struct {
		field  string
		opts   map[string]string
		mounts []corev1.VolumeMount
	}{
		{"spec.worker", rt.Spec.Worker.Options, rt.Spec.Worker.VolumeMounts},
		{"spec.fuse", rt.Spec.Fuse.Options, rt.Spec.Fuse.VolumeMounts},
	} {
		oc := OptionCache{Component: c.field, DirField: OptionField(c.field, "cache-dir"), Bytes: tierBytes}
		if dirs, ok := c.opts["cache-dir"]; ok {
			oc.Defined, oc.SizeField = true, OptionField(c.field, "cache-dir")
			oc.HostDirs = t.optionHostDirs(dirs, c.mounts)
			if len(t.dirs) == 0 {
				oc.Bytes = defaultCacheBytes
			}
		}
		if size, ok := c.opts["cache-size"]; ok {
			oc.Defined, oc.SizeField = true, OptionField(c.field, "cache-size")
			oc.Bytes, _ = cacheSizeBytes(size) // an invalid size is refused (checkCacheSize)
		}
		out = append(out, oc)
	}
	return out
}

// optionHostDirs are the directories of a cache-dir value that the
// engine backs with a hostPath of the node: not a tier directory (backed
// by the tier's volume), not a path the component mounts itself (own),
// as cacheVolumes reads them. They are given as written: the engine
// cleans them (CleanCachePath), the webhook judges them clean and
// absolute.
func (t tier) optionHostDirs(value string, own []corev1.VolumeMount) []string {
	var out []string
	for _, p := range strings.Split(value, ":") {
		if p == "" || slices.ContainsFunc(own, func(m corev1.VolumeMount) bool { return m.MountPath == p }) ||
			slices.ContainsFunc(t.dirs, func(d cacheDir) bool { return d.path == p }) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// notACacheSize says why cacheSizeBytes refuses a value.
const notACacheSize = "is not a cache size: a number of MiB, or a number with a unit K, M, G, T, P or E, below 4 EiB"

// cacheSizeBytes reads a cache-size value as JuiceFS does: a number of
// MiB, or a number with a unit K, M, G, T, P or E (powers of 1024); ok is
// false for anything else, and for a size of 4 EiB or more.
func cacheSizeBytes(v string) (bytes int64, ok bool) {
	s, shift := v, 20
	if s != "" {
		units := map[byte]int{'k': 10, 'K': 10, 'm': 20, 'M': 20, 'g': 30, 'G': 30, 't': 40, 'T': 40, 'p': 50, 'P': 50, 'e': 60, 'E': 60}
		if u, ok := units[s[len(s)-1]]; ok {
			s, shift = s[:len(s)-1], u
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*float64(uint64(1)<<shift) >= 1<<62 {
		return 0, false
	}
	return int64(f * float64(uint64(1)<<shift)), true
}

// checkCacheSize is the Check of the options rows: a cache-size that is
// not a size is refused (the budget could not count it).
func checkCacheSize(v any) string {
	opts, _ := v.(map[string]string)
	if size, ok := opts["cache-size"]; ok {
		if _, ok := cacheSizeBytes(size); !ok {
			return fmt.Sprintf("cache-size %q %s", size, notACacheSize)
		}
	}
	return ""
}

// checkDatasetCacheOptions is the Check of a Dataset's options rows: the
// cache belongs to the runtime (spec.tieredstore or its components'
// options), where it is judged and budgeted, not to the Dataset.
func checkDatasetCacheOptions(v any) string {
	opts, _ := v.(map[string]string)
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if _, ok := CacheOptionKinds[k]; ok {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "the cache options " + strings.Join(bad, ", ") + " belong to the JuiceFSRuntime: set spec.tieredstore (or spec.worker.options / spec.fuse.options), where the cache directory is judged and its size counted in the namespace's cache budget"
}
