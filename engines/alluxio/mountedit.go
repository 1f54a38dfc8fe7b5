package alluxio

import (
	"fmt"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

var _ engines.MountChecker = Engine{}

// CheckMountEdit implements engines.MountChecker. Alluxio applies a change
// of the nested mounts to its running masters (the mount Job), but its root
// under storage (a Dataset's sole mount without name or path, else the
// master's empty local directory) is set when a master formats its journal:
// a bound Dataset's root cannot change, nor can it turn from one to the
// other.
func (Engine) CheckMountEdit(applied []datav1alpha1.Mount, ds *datav1alpha1.Dataset) []engines.Finding {
	was, now := rootMount(applied), rootMount(engines.EffectiveMounts(ds))
	switch {
	case was == nil && now == nil:
		return nil
	case was != nil && now != nil:
		if engines.SameMounts([]datav1alpha1.Mount{*was}, []datav1alpha1.Mount{*now}) {
			return nil
		}
		return []engines.Finding{{Path: "spec.mounts[0]", Support: engines.Refused, Message: fmt.Sprintf(
			"the root under storage of a bound Alluxio Dataset (%s) cannot change: the master keeps it in its journal; %s", was.MountPoint, recreate)}}
	case was != nil:
		return []engines.Finding{{Path: "spec.mounts", Support: engines.Refused, Message: fmt.Sprintf(
			"the sole mount without name or path (%s) is the bound Alluxio Dataset's root under storage, kept in the master's journal: it cannot become a mount below the root, nor get others beside it; %s", was.MountPoint, recreate)}}
	}
	return []engines.Finding{{Path: "spec.mounts[0]", Support: engines.Refused, Message: fmt.Sprintf(
		"a sole mount without name or path (%s) would be Alluxio's root under storage, which a bound Dataset's master set when it formatted its journal; give it a name or path; %s", now.MountPoint, recreate)}}
}

// recreate says how to change what CheckMountEdit refuses.
const recreate = "to change it, delete the AlluxioRuntime and create it again"

// rootMount is the mount that is Alluxio's root under storage, nil when
// every mount is nested (planUFS).
func rootMount(mounts []datav1alpha1.Mount) *datav1alpha1.Mount {
	if len(mounts) != 1 {
		return nil
	}
	if p, err := alluxioPath("", mounts[0], true); err != nil || p != "/" {
		return nil
	}
	return &mounts[0]
}
