package thin

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// cacheVolume is one tieredstore path, mounted at the same path in the FUSE
// and worker containers for the user's program to cache in.
type cacheVolume struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Type is hostPath (DirectoryOrCreate) or emptyDir.
	Type string `json:"type"`
	// HostPath, for type hostPath, is the node directory behind Path: the
	// runtime's own below it (engines.HostCacheDir).
	HostPath string `json:"hostPath,omitempty"`
	// Medium is "Memory" for a MEM tier in an emptyDir.
	Medium string `json:"medium,omitempty"`
	// SizeLimit bounds an emptyDir: the path's share of the tier's quota.
	SizeLimit string `json:"sizeLimit,omitempty"`
}

// cacheVolumes turns spec.tieredstore.levels of the runtime
// namespace/name into one volume per path; a tier's quota is split evenly
// over its paths unless quotaList gives each its own. A hostPath path is
// backed by the runtime's own directory below it on the node
// (engines.HostCacheDir).
func cacheVolumes(ts datav1alpha1.TieredStore, namespace, name string) ([]cacheVolume, error) {
	out := []cacheVolume{}
	seen := map[string]string{}
	for li, l := range ts.Levels {
		field := fmt.Sprintf("spec.tieredstore.levels[%d]", li)
		if strings.TrimSpace(l.Path) == "" {
			return nil, engines.Invalid("%s.path is empty", field)
		}
		paths := strings.Split(l.Path, ",")
		quotas, err := pathQuotas(field, l, len(paths))
		if err != nil {
			return nil, err
		}
		for pi, p := range paths {
			p, err := engines.CleanCachePath(field+".path", strings.TrimSpace(p))
			if err != nil {
				return nil, err
			}
			if prev, dup := seen[p]; dup {
				return nil, engines.Invalid("%s.path: %q is also a path of %s", field, p, prev)
			}
			seen[p] = field
			v := cacheVolume{Name: fmt.Sprintf("thin-cache-%d-%d", li, pi), Path: p, Type: string(l.VolumeType)}
			if v.Type == "" {
				v.Type = string(datav1alpha1.VolumeTypeHostPath)
			}
			if v.Type == string(datav1alpha1.VolumeTypeEmptyDir) {
				v.Medium, v.SizeLimit = emptyDirShape(l, quotas[pi])
			} else {
				v.HostPath = engines.HostCacheDir(p, namespace, name)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// pathQuotas is each path's quota (nil when the tier sets none).
func pathQuotas(field string, l datav1alpha1.Level, n int) ([]*resource.Quantity, error) {
	out := make([]*resource.Quantity, n)
	if l.QuotaList != "" {
		list := strings.Split(strings.TrimSuffix(l.QuotaList, ","), ",")
		if len(list) != n {
			return nil, engines.Invalid("%s.quotaList has %d entries for %d paths", field, len(list), n)
		}
		for i, s := range list {
			q, err := resource.ParseQuantity(strings.TrimSpace(s))
			if err != nil {
				return nil, engines.Invalid("%s.quotaList[%d] %q: %v", field, i, s, err)
			}
			out[i] = &q
		}
		return out, nil
	}
	if l.Quota != nil {
		share := resource.NewQuantity(l.Quota.Value()/int64(n), resource.BinarySI)
		for i := range out {
			out[i] = share
		}
	}
	return out, nil
}

// emptyDirShape is the medium and size limit of a tier's emptyDir: the
// level's volumeSource.emptyDir when it sets them, else Memory for MEM and
// the path's quota.
func emptyDirShape(l datav1alpha1.Level, quota *resource.Quantity) (medium, sizeLimit string) {
	if l.MediumType == datav1alpha1.Memory {
		medium = string(corev1.StorageMediumMemory)
	}
	if quota != nil && !quota.IsZero() {
		sizeLimit = quota.String()
	}
	if ed := l.VolumeSource.EmptyDir; ed != nil {
		if ed.Medium != "" {
			medium = string(ed.Medium)
		}
		if ed.SizeLimit != nil {
			sizeLimit = ed.SizeLimit.String()
		}
	}
	return medium, sizeLimit
}
