package jindo

import (
	"fmt"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

const (
	mib = int64(1) << 20
	gib = int64(1) << 30
)

// cache is the workers' cache layout, from tieredstore levels[0].
type cache struct {
	Tiers  []tier
	Medium datav1alpha1.MediumType
	// DataDirs are the per-dataset directories inside each tier path.
	DataDirs []string
	// Capacities are the per-directory sizes in JindoCache units ("10g").
	Capacities []string
	// TotalBytes is the tier's size on one worker.
	TotalBytes int64
	High, Low  string
}

// cacheLayout reads levels[0], the only tier JindoCache uses, for the
// runtime namespace/name (whose own directory below each hostPath path
// backs it on the node: engines.HostCacheDir). Its paths are
// comma-separated; quotaList gives one size per path and overrides quota,
// which is the size of the whole tier and is split evenly over its paths (as
// the API documents Level.Quota). Every directory must get at least 1MiB.
func cacheLayout(ts datav1alpha1.TieredStore, namespace, name string) (cache, error) {
	if len(ts.Levels) == 0 {
		return cache{}, engines.Invalid("spec.tieredstore.levels is empty: JindoCache workers need levels[0] with a path and a quota")
	}
	if len(ts.Levels) > 1 {
		return cache{}, engines.Invalid("spec.tieredstore.levels[1]: JindoCache caches in a single tier; set only levels[0]")
	}
	l := ts.Levels[0]
	paths, err := tierPaths(l.Path)
	if err != nil {
		return cache{}, err
	}
	sizes, err := tierSizes(l, len(paths))
	if err != nil {
		return cache{}, err
	}
	volType := l.VolumeType
	if volType == "" {
		volType = datav1alpha1.VolumeTypeHostPath
	}
	c := cache{Medium: l.MediumType, High: l.High, Low: l.Low}
	for i, p := range paths {
		t := tier{Name: fmt.Sprintf("cache-%d", i), Path: p, Type: string(volType)}
		if volType == datav1alpha1.VolumeTypeEmptyDir {
			t.Medium, t.SizeLimit = emptyDirMedium(l), resource.NewQuantity(sizes[i], resource.BinarySI).String()
		} else {
			t.HostPath = engines.HostCacheDir(p, namespace, name)
		}
		c.Tiers = append(c.Tiers, t)
		c.DataDirs = append(c.DataDirs, path.Join(p, namespace, name, "jindocache"))
		c.Capacities = append(c.Capacities, jindoSize(sizes[i]))
		c.TotalBytes += sizes[i]
	}
	return c, nil
}

// tierPaths splits levels[0].path into clean absolute directories.
func tierPaths(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, engines.Invalid("spec.tieredstore.levels[0].path %q: every comma-separated entry must be a directory", s)
		}
		p, err := engines.CleanCachePath("spec.tieredstore.levels[0].path", p)
		if err != nil {
			return nil, err
		}
		if seen[p] {
			return nil, engines.Invalid("spec.tieredstore.levels[0].path: %q is listed twice", p)
		}
		seen[p] = true
		out = append(out, p)
	}
	return out, nil
}

// tierSizes returns the size in bytes of each of n paths.
func tierSizes(l datav1alpha1.Level, n int) ([]int64, error) {
	if l.QuotaList != "" {
		list := strings.Split(strings.TrimSuffix(strings.TrimSpace(l.QuotaList), ","), ",")
		if len(list) != n {
			return nil, engines.Invalid("spec.tieredstore.levels[0].quotaList has %d entries for %d paths; give one quota per path", len(list), n)
		}
		sizes := make([]int64, n)
		for i, s := range list {
			q, err := resource.ParseQuantity(strings.TrimSpace(s))
			if err != nil {
				return nil, engines.Invalid("spec.tieredstore.levels[0].quotaList entry %d %q is not a quantity: %v", i, s, err)
			}
			if q.Value() < mib {
				return nil, engines.Invalid("spec.tieredstore.levels[0].quotaList entry %d is %s; each cache directory needs at least 1Mi", i, q.String())
			}
			sizes[i] = q.Value()
		}
		return sizes, nil
	}
	if l.Quota == nil {
		return nil, engines.Invalid("spec.tieredstore.levels[0] sets neither quota nor quotaList; JindoCache needs the cache size")
	}
	per := l.Quota.Value() / int64(n)
	if per < mib {
		return nil, engines.Invalid("spec.tieredstore.levels[0].quota %s split over %d paths leaves less than 1Mi per directory", l.Quota.String(), n)
	}
	sizes := make([]int64, n)
	for i := range sizes {
		sizes[i] = per
	}
	return sizes, nil
}

// emptyDirMedium is the emptyDir medium of a tier: the level's own
// volumeSource.emptyDir.medium if set, RAM for the MEM tier, else disk.
func emptyDirMedium(l datav1alpha1.Level) string {
	if ed := l.VolumeSource.EmptyDir; ed != nil && ed.Medium != "" {
		return string(ed.Medium)
	}
	if l.MediumType == datav1alpha1.Memory {
		return string(corev1.StorageMediumMemory)
	}
	return ""
}

// jindoSize writes bytes in JindoCache's size units: whole gigabytes as
// "<n>g", anything else in whole megabytes "<n>m" (rounded down).
func jindoSize(b int64) string {
	if b%gib == 0 {
		return fmt.Sprintf("%dg", b/gib)
	}
	return fmt.Sprintf("%dm", b/mib)
}

// checkMemoryLimit rejects a MEM tier larger than the worker's memory limit,
// which would get the worker killed once the cache fills.
func checkMemoryLimit(c cache, res corev1.ResourceRequirements) error {
	if c.Medium != datav1alpha1.Memory {
		return nil
	}
	limit, ok := res.Limits[corev1.ResourceMemory]
	if ok && limit.Value() < c.TotalBytes {
		return engines.Invalid("spec.worker.resources.limits.memory %s is below the MEM tier's quota %s on each worker",
			limit.String(), resource.NewQuantity(c.TotalBytes, resource.BinarySI).String())
	}
	return nil
}
