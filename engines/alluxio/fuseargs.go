package alluxio

import (
	"slices"
	"strconv"
	"strings"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// defaultFuseOptions are the libfuse options of the FUSE client unless
// spec.fuse.args replaces its arguments.
const defaultFuseOptions = "allow_other,kernel_cache,attr_timeout=7200,entry_timeout=7200,max_read=131072"

// fuseOptsFlag is the FUSE client's argument carrying the libfuse options.
const fuseOptsFlag = "--fuse-opts="

// fuseClient is the FUSE client's arguments (spec.fuse.args, or the
// defaults) and the properties it adds to the FUSE client's, as Fluid
// sets them from the Dataset's spec.owner: an owner becomes the uid= and
// gid= libfuse options, so that every file of the mount shows that owner;
// without one, Alluxio translates its users and groups to the node's
// (alluxio.fuse.user.group.translation.enabled).
func fuseClient(ds *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) ([]string, map[string]string, error) {
	args := slices.Clone(rt.Spec.Fuse.Args)
	if len(args) == 0 {
		opts := defaultFuseOptions
		if readOnly(ds) {
			opts += ",ro"
		}
		args = []string{"fuse", fuseOptsFlag + opts}
	}
	owner := ds.Spec.Owner
	if owner == nil {
		return args, map[string]string{"alluxio.fuse.user.group.translation.enabled": "true"}, nil
	}
	if owner.UID == nil || owner.GID == nil || *owner.UID < 0 || *owner.GID < 0 {
		return nil, nil, engines.Invalid("dataset %s/%s spec.owner: the FUSE mount's owner needs both uid and gid, each 0 or more", ds.Namespace, ds.Name)
	}
	i := slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, fuseOptsFlag) })
	if i < 0 {
		return nil, nil, engines.Invalid("dataset %s/%s spec.owner: the owner is set through the FUSE client's %s argument, which spec.fuse.args of AlluxioRuntime %s/%s lacks; add one (e.g. %sallow_other)",
			ds.Namespace, ds.Name, fuseOptsFlag, rt.Namespace, rt.Name, fuseOptsFlag)
	}
	ids := "uid=" + strconv.FormatInt(*owner.UID, 10) + ",gid=" + strconv.FormatInt(*owner.GID, 10)
	if args[i] != fuseOptsFlag {
		ids = "," + ids
	}
	args[i] += ids
	return args, nil, nil
}
