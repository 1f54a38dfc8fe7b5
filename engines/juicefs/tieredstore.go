package juicefs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// tier is levels[0] of the tiered store, the only level JuiceFS uses: its
// directories, as --cache-dir takes them, and the total --cache-size.
type tier struct {
	dirs     []cacheDir
	quotaMiB int64
	// low is the level's low watermark, JuiceFS's --free-space-ratio.
	low string
	// namespace and name are the runtime's, whose own directories back
	// hostPath cache directories.
	namespace, name string
}

// cacheDir is one cache directory and the volume that backs it.
type cacheDir struct {
	path   string
	source corev1.VolumeSource
}

// tierOf reads levels[0] of the runtime namespace/name: paths separated
// by ':' (as --cache-dir and Fluid's JuiceFS documentation write them) or
// ','; the quota is the total cache size, in MiB. A hostPath directory is
// backed by the runtime's own directory below it on the node
// (engines.HostCacheDir).
func tierOf(ts datav1alpha1.TieredStore, namespace, name string) (tier, error) {
	if len(ts.Levels) == 0 {
		return tier{namespace: namespace, name: name}, nil
	}
	if len(ts.Levels) > 1 {
		return tier{}, engines.Invalid("spec.tieredstore.levels[1]: JuiceFS caches in one level, levels[0]; put every cache directory there")
	}
	l := ts.Levels[0]
	if l.QuotaList != "" {
		return tier{}, engines.Invalid("spec.tieredstore.levels[0].quotaList: JuiceFS takes one --cache-size for all its directories; use quota")
	}
	var quotaMiB int64
	if l.Quota != nil {
		quotaMiB = l.Quota.Value() >> 20
	}
	if quotaMiB <= 0 {
		return tier{}, engines.Invalid("spec.tieredstore.levels[0].quota: JuiceFS needs at least 1Mi (--cache-size is in MiB; a bare number is bytes)")
	}
	t := tier{quotaMiB: quotaMiB, low: l.Low, namespace: namespace, name: name}
	for _, p := range strings.FieldsFunc(l.Path, func(r rune) bool { return r == ',' || r == ':' }) {
		if p = strings.TrimSpace(p); p != "" {
			p, err := engines.CleanCachePath("spec.tieredstore.levels[0].path", p)
			if err != nil {
				return tier{}, err
			}
			t.dirs = append(t.dirs, cacheDir{path: p, source: t.tierVolume(l, p)})
		}
	}
	if len(t.dirs) == 0 {
		return tier{}, engines.Invalid("spec.tieredstore.levels[0].path: no cache directory in %q", l.Path)
	}
	return t, nil
}

// tierVolume backs a cache directory: the level's emptyDir (medium Memory
// for MEM unless its volumeSource says otherwise) or the runtime's
// directory of the node (hostDir).
func (t tier) tierVolume(l datav1alpha1.Level, p string) corev1.VolumeSource {
	if l.VolumeType == datav1alpha1.VolumeTypeEmptyDir {
		if l.VolumeSource.EmptyDir != nil {
			return corev1.VolumeSource{EmptyDir: l.VolumeSource.EmptyDir.DeepCopy()}
		}
		ed := &corev1.EmptyDirVolumeSource{}
		if l.MediumType == datav1alpha1.Memory {
			ed.Medium = corev1.StorageMediumMemory
		}
		return corev1.VolumeSource{EmptyDir: ed}
	}
	return t.hostDir(p)
}

// hostDir is the runtime's directory of the node behind cache directory
// p, <p>/.sluice/<namespace>/<name>: two runtimes caching in one path
// never share a directory, and the runtime's cache cleanup removes
// exactly it.
func (t tier) hostDir(p string) corev1.VolumeSource {
	typ := corev1.HostPathDirectoryOrCreate
	return corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: engines.HostCacheDir(p, t.namespace, t.name), Type: &typ}}
}

// flags are the tier's mount flags, which workers and FUSE both take.
func (t tier) flags() []flag {
	if len(t.dirs) == 0 {
		return nil
	}
	paths := make([]string, len(t.dirs))
	for i, d := range t.dirs {
		paths[i] = d.path
	}
	out := []flag{{Name: "cache-dir", Value: strings.Join(paths, ":")}, {Name: "cache-size", Value: strconv.FormatInt(t.quotaMiB, 10)}}
	if t.low != "" {
		out = append(out, flag{Name: "free-space-ratio", Value: t.low})
	}
	return out
}

// cacheVolumes back the cache directories a component's flags name
// (cache-dir, the tier's unless its options replace it, as Fluid lets
// them): a tier directory by the tier's volume, any other by the
// runtime's directory of the node (hostDir), after the same check as a
// tier path (field names the options). A directory the component mounts
// itself (volumeMounts) is left to that mount.
func (t tier) cacheVolumes(field string, flags []flag, own []corev1.VolumeMount) ([]corev1.Volume, []corev1.VolumeMount, error) {
	i := slices.IndexFunc(flags, func(f flag) bool { return f.Name == "cache-dir" })
	if i < 0 {
		return nil, nil, nil
	}
	var vols []corev1.Volume
	var mounts []corev1.VolumeMount
	for n, p := range strings.Split(flags[i].Value, ":") {
		if p == "" || slices.ContainsFunc(own, func(m corev1.VolumeMount) bool { return m.MountPath == p }) {
			continue
		}
		var src corev1.VolumeSource
		if j := slices.IndexFunc(t.dirs, func(d cacheDir) bool { return d.path == p }); j >= 0 {
			src = t.dirs[j].source
		} else if clean, err := engines.CleanCachePath(field+"[\"cache-dir\"]", p); err != nil {
			return nil, nil, err
		} else {
			src = t.hostDir(clean)
		}
		name := fmt.Sprintf("cache-%d", n)
		vols = append(vols, corev1.Volume{Name: name, VolumeSource: src})
		mounts = append(mounts, corev1.VolumeMount{Name: name, MountPath: p})
	}
	return vols, mounts, nil
}
