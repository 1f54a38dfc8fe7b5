package alluxio

import (
	"fmt"
	"path"
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// tiers is the workers' cache layout: the tieredstore properties and the
// volume behind each tier directory.
type tiers struct {
	props   map[string]string
	volumes []corev1.Volume
	mounts  []corev1.VolumeMount
}

// mediumRank orders Alluxio's tier aliases, fastest first, as its default
// global tier ordering does.
var mediumRank = map[datav1alpha1.MediumType]int{datav1alpha1.Memory: 0, datav1alpha1.SSD: 1, datav1alpha1.HDD: 2}

// planTiers turns spec.tieredstore of the runtime namespace/name into
// Alluxio's level<i> properties and one volume per directory; a hostPath
// directory is backed by the runtime's own directory below it on the node
// (engines.HostCacheDir).
func planTiers(ts datav1alpha1.TieredStore, namespace, name string) (tiers, error) {
	t := tiers{props: map[string]string{}}
	if len(ts.Levels) == 0 {
		return t, engines.Invalid("spec.tieredstore.levels: an Alluxio worker needs at least one cache tier")
	}
	seen := map[string]string{}
	prev := -1
	for i, l := range ts.Levels {
		field := fmt.Sprintf("spec.tieredstore.levels[%d]", i)
		rank, ok := mediumRank[l.MediumType]
		switch {
		case !ok:
			return t, engines.Invalid("%s.mediumtype: %q is not MEM, SSD or HDD", field, l.MediumType)
		case rank == prev:
			return t, engines.Invalid("%s.mediumtype: a second %s tier; Alluxio has one tier per medium", field, l.MediumType)
		case rank < prev:
			return t, engines.Invalid("%s.mediumtype: %s comes after a slower tier; list tiers fastest first (MEM, SSD, HDD)", field, l.MediumType)
		}
		prev = rank
		paths, err := tierPaths(field, l.Path, seen)
		if err != nil {
			return t, err
		}
		quotas, err := tierQuotas(field, l, len(paths))
		if err != nil {
			return t, err
		}
		for j, p := range paths {
			v, err := tierVolume(field, fmt.Sprintf("tier%d-%d", i, j), engines.HostCacheDir(p, namespace, name), l, quotas[j])
			if err != nil {
				return t, err
			}
			t.volumes = append(t.volumes, v)
			t.mounts = append(t.mounts, corev1.VolumeMount{Name: v.Name, MountPath: p})
		}
		if err := levelProps(t.props, field, i, l, paths, quotas); err != nil {
			return t, err
		}
	}
	t.props["alluxio.worker.tieredstore.levels"] = strconv.Itoa(len(ts.Levels))
	return t, nil
}

// levelProps writes the properties of tier i.
func levelProps(props map[string]string, field string, i int, l datav1alpha1.Level, paths []string, quotas []int64) error {
	prefix := fmt.Sprintf("alluxio.worker.tieredstore.level%d.", i)
	sizes, mediums := make([]string, len(quotas)), make([]string, len(paths))
	for j := range quotas {
		sizes[j], mediums[j] = formatSize(quotas[j]), string(l.MediumType)
	}
	props[prefix+"alias"] = string(l.MediumType)
	props[prefix+"dirs.path"] = strings.Join(paths, ",")
	props[prefix+"dirs.quota"] = strings.Join(sizes, ",")
	props[prefix+"dirs.mediumtype"] = strings.Join(mediums, ",")
	high, err := ratio(field+".high", l.High)
	if err != nil {
		return err
	}
	low, err := ratio(field+".low", l.Low)
	if err != nil {
		return err
	}
	if high > 0 && low > 0 && low >= high {
		return engines.Invalid("%s: low (%s) must be below high (%s)", field, l.Low, l.High)
	}
	if high > 0 {
		props[prefix+"watermark.high.ratio"] = l.High
	}
	if low > 0 {
		props[prefix+"watermark.low.ratio"] = l.Low
	}
	return nil
}

// tierPaths splits a level's comma-separated directories; each must be an
// absolute path (engines.CleanCachePath, which cleans it), without spaces
// (Alluxio's property lists), used by no other tier.
func tierPaths(field, list string, seen map[string]string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, engines.Invalid("%s.path: a tier needs at least one directory", field)
	}
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if !path.IsAbs(p) || strings.ContainsAny(p, " \t") || engines.CheckLine(field, p) != nil {
			return nil, engines.Invalid("%s.path: %q is not an absolute directory path without spaces", field, p)
		}
		p, err := engines.CleanCachePath(field+".path", p)
		if err != nil {
			return nil, err
		}
		if other, dup := seen[p]; dup {
			return nil, engines.Invalid("%s.path: %s is also a directory of %s", field, p, other)
		}
		seen[p] = field
		out = append(out, p)
	}
	return out, nil
}

// tierQuotas returns each directory's size in bytes: quotaList gives one
// size per path; otherwise quota, the whole tier's size, is split evenly.
func tierQuotas(field string, l datav1alpha1.Level, paths int) ([]int64, error) {
	out := make([]int64, paths)
	switch {
	case l.QuotaList != "":
		list := strings.Split(strings.TrimSuffix(l.QuotaList, ","), ",")
		if len(list) != paths {
			return nil, engines.Invalid("%s.quotaList: %d sizes for %d paths; give one size per path", field, len(list), paths)
		}
		for j, s := range list {
			q, err := resource.ParseQuantity(strings.TrimSpace(s))
			if err != nil {
				return nil, engines.Invalid("%s.quotaList[%d]: %q is not a size: %v", field, j, s, err)
			}
			if q.Value() <= 0 {
				return nil, engines.Invalid("%s.quotaList[%d]: %s is not a positive size", field, j, s)
			}
			out[j] = q.Value()
		}
	case l.Quota != nil:
		if l.Quota.Value() <= 0 {
			return nil, engines.Invalid("%s.quota: %s is not a positive size", field, l.Quota.String())
		}
		each := l.Quota.Value() / int64(paths)
		if each == 0 {
			return nil, engines.Invalid("%s.quota: %s split over %d paths leaves no bytes per path", field, l.Quota.String(), paths)
		}
		for j := range out {
			out[j] = each
		}
	default:
		return nil, engines.Invalid("%s: quota or quotaList must be set", field)
	}
	return out, nil
}

// tierVolume is the volume behind one tier directory: the level's own
// volumeSource if it has one, else the host directory hostDir or a
// size-limited emptyDir (in memory for MEM).
func tierVolume(field, name, hostDir string, l datav1alpha1.Level, quota int64) (corev1.Volume, error) {
	v := corev1.Volume{Name: name}
	if !reflect.DeepEqual(l.VolumeSource, corev1.VolumeSource{}) {
		v.VolumeSource = *l.VolumeSource.DeepCopy()
		return v, nil
	}
	switch l.VolumeType {
	case datav1alpha1.VolumeTypeHostPath, "":
		v.HostPath = &corev1.HostPathVolumeSource{Path: hostDir, Type: ptr.To(corev1.HostPathDirectoryOrCreate)}
	case datav1alpha1.VolumeTypeEmptyDir:
		v.EmptyDir = &corev1.EmptyDirVolumeSource{SizeLimit: resource.NewQuantity(quota, resource.BinarySI)}
		if l.MediumType == datav1alpha1.Memory {
			v.EmptyDir.Medium = corev1.StorageMediumMemory
		}
	default:
		return v, engines.Invalid("%s.volumeType: %q is not hostPath or emptyDir", field, l.VolumeType)
	}
	return v, nil
}

// ratio parses a watermark; "" is 0 (unset).
func ratio(field, s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1 {
		return 0, engines.Invalid("%s: %q is not a ratio in (0,1]", field, s)
	}
	return f, nil
}

// formatSize writes bytes as Alluxio reads sizes (KB, MB, GB are powers of
// 1024), exactly: "2GB", "1536MB", or plain bytes.
func formatSize(b int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if b%u.size == 0 {
			return strconv.FormatInt(b/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(b, 10)
}
