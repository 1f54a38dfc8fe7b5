package juicefs

import (
	"regexp"
	"slices"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// Fields is the JuiceFSRuntime field table: what this engine does with each
// spec field, as the engine behaves today. Values refuses the refused ones
// (Fields.Refuse) and the validating webhook denies them at admission and
// warns on the warned ones; a field the engine learns to honour moves here
// from refused to honoured, with a sample in the render test.
var Fields = append(engines.Fields{
	engines.HonouredField("spec.configs", "extra `juicefs format` flags (enterprise edition: `juicefs auth` flags), each name=value"),
	engines.HonouredField("spec.disablePrometheus", "no metrics port or flag on workers and FUSE; cache states are then not read"),
	engines.OutsideChartField("spec.fuse.cleanPolicy", "the Dataset's PV, read by the CSI plugin", "when a node's FUSE pod is stopped"),
	engines.HonouredField("spec.fuse.env", "environment of the FUSE container"),
	engines.HonouredField("spec.fuse.image", "image of the FUSE container (default: spec.juicefsVersion's)"),
	engines.HonouredField("spec.fuse.imagePullPolicy", "pull policy of the FUSE image"),
	engines.HonouredField("spec.fuse.imageTag", "tag of the FUSE image"),
	engines.HonouredField("spec.fuse.networkMode", "ContainerNetwork runs FUSE on the pod network (host network otherwise)"),
	engines.HonouredField("spec.fuse.nodeSelector", "nodes FUSE may run on, with the Dataset's FUSE label"),
	{Path: "spec.fuse.options", Support: engines.Honoured, Check: checkCacheSize,
		Note: "JuiceFS mount flags of the FUSE client, as mount.juicefs -o maps them; unknown names refused. A cache-dir directory outside the tier is a host path judged like a tier path, and cache-size (which must be a size) counts in the namespace's cache budget"},
	engines.HonouredField("spec.fuse.podMetadata", "labels and annotations of the FUSE pods"),
	engines.HonouredField("spec.fuse.resources", "FUSE container resources"),
	engines.HonouredField("spec.fuse.volumeMounts", "mounts of spec.volumes in the FUSE container"),
	engines.RefusedField("spec.initUsers", "the JuiceFS engine runs no init-users container; remove it"),
	engines.RefusedField("spec.jobWorker", "the JuiceFS engine runs no job workers (data operations run as their own Jobs); remove it"),
	engines.HonouredField("spec.juicefsVersion", "image, tag and pull policy of workers and FUSE"),
	engines.OutsideChartField("spec.management.metadataSyncPolicy", "the controller's metadata sync", "autoSync (default true) reads the volume's used space and inodes (ufsTotal, fileNum) from the workers' metrics, with disablePrometheus counts them with a metadata Job; false reads nothing"),
	engines.RefusedField("spec.master", "the JuiceFS engine runs no master (the community edition's metadata engine is the metaurl's, the enterprise edition's is the console's); remove it"),
	engines.HonouredField("spec.podMetadata", "labels and annotations of worker and FUSE pods (a component's own win)"),
	engines.HonouredField("spec.replicas", "number of workers"),
	engines.RefusedField("spec.runAs", "JuiceFS workers and FUSE run as root, privileged, to mount FUSE; remove it"),
	engines.RefusedField("spec.tieredstore.levels[1]", "JuiceFS caches in one level (one --cache-size over its directories); set only levels[0]"),
	engines.WarnedField("spec.tieredstore.levels[].high", "has no effect: JuiceFS evicts by free space (levels[].low, --free-space-ratio) only"),
	engines.HonouredField("spec.tieredstore.levels[].low", "the free space JuiceFS keeps on the cache disks (--free-space-ratio)"),
	engines.OutsideChartField("spec.tieredstore.levels[].mediumtype", "the validating webhook (cache budgets per medium, MEM against the worker memory limit)", "the tier's medium"),
	engines.HonouredField("spec.tieredstore.levels[].path", "the cache directories of workers and FUSE (--cache-dir)"),
	engines.HonouredField("spec.tieredstore.levels[].quota", "the cache size of workers and FUSE (--cache-size, at least 1Mi)"),
	engines.RefusedField("spec.tieredstore.levels[].quotaList", "JuiceFS takes one --cache-size for all its directories; use quota"),
	{Path: "spec.tieredstore.levels[].volumeSource", Support: engines.Honoured, Check: engines.EmptyDirOnly,
		Note: "emptyDir settings (medium, size) of emptyDir cache directories"},
	engines.HonouredField("spec.tieredstore.levels[].volumeType", "hostPath or emptyDir cache directories"),
	engines.HonouredField("spec.volumeClaimTemplates", "claims of the worker StatefulSet, mounted by spec.worker.volumeMounts"),
	engines.HonouredField("spec.volumes", "extra volumes of the pods, mounted by the components' volumeMounts"),
	engines.WarnedField("spec.worker.enabled", "has no effect: Sluice always runs JuiceFS workers"),
	engines.HonouredField("spec.worker.env", "environment of the workers"),
	engines.HonouredField("spec.worker.networkMode", "network of the workers"),
	engines.HonouredField("spec.worker.nodeSelector", "nodes the workers may run on"),
	{Path: "spec.worker.options", Support: engines.Honoured, Check: checkCacheSize,
		Note: "JuiceFS mount flags of the workers, as mount.juicefs -o maps them; unknown names refused. A cache-dir directory outside the tier is a host path judged like a tier path, and cache-size (which must be a size) counts in the namespace's cache budget"},
	engines.HonouredField("spec.worker.podMetadata", "labels and annotations of the worker pods"),
	engines.RefusedField("spec.worker.ports", "a JuiceFS worker's only port is metrics (9567); remove them"),
	engines.RefusedField("spec.worker.replicas", "the number of workers is spec.replicas; remove it"),
	engines.HonouredField("spec.worker.resources", "container resources of the workers"),
	engines.HonouredField("spec.worker.volumeMounts", "mounts of spec.volumes and the claim templates in the workers"),
}, engines.CleanCachePolicyFields("spec.management")...)

// DatasetFields are the fields of a Dataset that this engine serves which
// it cannot honour, and the Dataset specs it cannot mount (no volume
// credentials): refused by Values, and by the webhook when the Dataset is
// admitted while its runtime exists. Other Dataset fields are not
// classified per engine.
var DatasetFields = engines.Fields{
	{Path: "spec", Support: engines.Honoured, Check: checkCredentials,
		Note: "a Dataset must name the volume's metaurl (community edition) or token (enterprise edition) in spec.mounts[0].encryptOptions or spec.sharedEncryptOptions; one with neither is refused"},
	{Path: "spec.mounts[].options", Support: engines.Honoured, Check: checkDatasetCacheOptions,
		Note: "juicefs format and mount flags; the cache options cache-dir and cache-size are refused (the runtime's)"},
	engines.RefusedField("spec.mounts[1]", "Sluice's JuiceFS engine mounts one JuiceFS volume, spec.mounts[0]; give the Dataset one mount"),
	engines.RefusedField("spec.owner", "Sluice's JuiceFS engine does not set the owner of the dataset's files (neither does Fluid's: only its Alluxio engine sets the FUSE mount's uid and gid); remove the field"),
	engines.RefusedField("spec.dataRestoreLocation", "Sluice's JuiceFS engine cannot restore a Dataset from a DataBackup (DataBackup is Alluxio's): the metadata is in the JuiceFS volume's metadata engine; remove the field"),
	{Path: "spec.sharedOptions", Support: engines.Honoured, Check: checkDatasetCacheOptions,
		Note: "juicefs format and mount flags of every mount; the cache options cache-dir and cache-size are refused (the runtime's)"},
}

// missingCredentials is why a Dataset without metaurl and token is
// refused: the community edition would mount an unset $(METAURL).
const missingCredentials = "spec.mounts[0].encryptOptions: neither metaurl (the JuiceFS community edition's metadata URL) nor token (the enterprise edition's) is set, in spec.mounts[0].encryptOptions or spec.sharedEncryptOptions; JuiceFS cannot reach the volume without one: add it, from a Secret"

// optionName is what an encrypt option name looks like; Values refuses
// any other, naming it.
var optionName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// checkCredentials is DatasetFields' check of a Dataset spec: it names
// metaurl or token among its encrypt options. A Dataset with a malformed
// encrypt option name is left to Values, which refuses that name by its
// field (the user may have meant metaurl).
func checkCredentials(v any) string {
	spec, ok := v.(datav1alpha1.DatasetSpec)
	if !ok || len(spec.Mounts) == 0 {
		return ""
	}
	for _, eo := range append(slices.Clone(spec.SharedEncryptOptions), spec.Mounts[0].EncryptOptions...) {
		if eo.Name == "metaurl" || eo.Name == "token" || !optionName.MatchString(eo.Name) {
			return ""
		}
	}
	return missingCredentials
}
