package juicefs

import "github.com/sluice-data/sluice/engines"

// Fields is the JuiceFSRuntime field table: what this engine does with each
// spec field, as the engine behaves today. Values refuses the refused ones
// (Fields.Refuse) and the validating webhook denies them at admission and
// warns on the warned ones; a field the engine learns to honour moves here
// from refused to honoured, with a sample in the render test.
var Fields = engines.Fields{
	engines.RefusedField("spec.configs", "Sluice's JuiceFS engine does not mount extra configuration files; remove the field"),
	engines.RefusedField("spec.disablePrometheus", "Sluice's JuiceFS engine always serves FUSE metrics (the cache states need them); remove the field"),
	engines.OutsideChartField("spec.fuse.cleanPolicy", "the Dataset's PV, read by the CSI plugin", "when a node's FUSE pod is stopped"),
	engines.HonouredField("spec.fuse.env", "environment of the FUSE container"),
	engines.RefusedField("spec.fuse.image", "Sluice's JuiceFS engine runs FUSE from spec.juicefsVersion's image; set the image there"),
	engines.RefusedField("spec.fuse.imagePullPolicy", "Sluice's JuiceFS engine runs FUSE from spec.juicefsVersion's image; set the pull policy there"),
	engines.RefusedField("spec.fuse.imageTag", "Sluice's JuiceFS engine runs FUSE from spec.juicefsVersion's image; set the tag there"),
	engines.HonouredField("spec.fuse.networkMode", "ContainerNetwork runs FUSE on the pod network (host network otherwise)"),
	engines.HonouredField("spec.fuse.nodeSelector", "nodes FUSE may run on, with the Dataset's FUSE label"),
	engines.HonouredField("spec.fuse.options", "mount options of the FUSE client"),
	engines.HonouredField("spec.fuse.podMetadata", "labels and annotations of the FUSE pods"),
	engines.HonouredField("spec.fuse.resources", "FUSE container resources"),
	engines.RefusedField("spec.fuse.volumeMounts", "Sluice's JuiceFS engine mounts no extra volumes (spec.volumes is refused too); remove the field"),
	engines.RefusedField("spec.initUsers", "Sluice's JuiceFS engine runs no init-users container; remove the field"),
	engines.RefusedField("spec.jobWorker", "Sluice's JuiceFS engine runs no job workers; remove the field"),
	engines.HonouredField("spec.juicefsVersion", "image, tag and pull policy of workers and FUSE"),
	engines.OutsideChartField("spec.management.cleanCachePolicy", "the controller, at runtime deletion", "cache cleanup on deletion"),
	engines.WarnedField("spec.management.metadataSyncPolicy", "metadata sync is not implemented: the Dataset's ufsTotal and fileNum stay empty"),
	engines.RefusedField("spec.master", "Sluice's JuiceFS engine runs no master (JuiceFS Enterprise Edition is not supported); remove the field"),
	engines.RefusedField("spec.podMetadata", "Sluice's JuiceFS engine does not apply runtime-level pod metadata; set spec.worker.podMetadata and spec.fuse.podMetadata"),
	engines.HonouredField("spec.replicas", "number of workers"),
	engines.RefusedField("spec.runAs", "Sluice's JuiceFS engine does not run JuiceFS as another user; remove the field"),
	engines.RefusedField("spec.tieredstore.levels[1]", "Sluice's JuiceFS engine caches in levels[0] only; set only levels[0]"),
	engines.RefusedField("spec.tieredstore.levels[].high", "Sluice's JuiceFS engine sets no cache watermarks; remove the field"),
	engines.RefusedField("spec.tieredstore.levels[].low", "Sluice's JuiceFS engine sets no cache watermarks; remove the field"),
	engines.OutsideChartField("spec.tieredstore.levels[].mediumtype", "the validating webhook (cache budgets per medium, MEM against the worker memory limit)", "the tier's medium"),
	engines.HonouredField("spec.tieredstore.levels[].path", "the workers' cache directories (--cache-dir)"),
	engines.HonouredField("spec.tieredstore.levels[].quota", "the workers' cache size, split over the directories (--cache-size)"),
	engines.RefusedField("spec.tieredstore.levels[].quotaList", "Sluice's JuiceFS engine splits quota evenly; set quota instead"),
	engines.RefusedField("spec.tieredstore.levels[].volumeSource", "Sluice's JuiceFS engine mounts cache directories as hostPath or emptyDir (volumeType); remove the field"),
	engines.HonouredField("spec.tieredstore.levels[].volumeType", "hostPath or emptyDir cache directories"),
	engines.RefusedField("spec.volumeClaimTemplates", "Sluice's JuiceFS engine creates no claims for its pods; remove the field"),
	engines.RefusedField("spec.volumes", "Sluice's JuiceFS engine mounts no extra volumes; remove the field"),
	engines.WarnedField("spec.worker.enabled", "has no effect: Sluice always runs JuiceFS workers"),
	engines.HonouredField("spec.worker.env", "environment of the workers"),
	engines.HonouredField("spec.worker.networkMode", "network of the workers"),
	engines.HonouredField("spec.worker.nodeSelector", "nodes the workers may run on"),
	engines.HonouredField("spec.worker.options", "mount options of the workers"),
	engines.HonouredField("spec.worker.podMetadata", "labels and annotations of the worker pods"),
	engines.RefusedField("spec.worker.ports", "Sluice's JuiceFS engine sets the workers' ports itself; remove the field"),
	engines.WarnedField("spec.worker.replicas", "has no effect: the number of workers is spec.replicas"),
	engines.HonouredField("spec.worker.resources", "container resources of the workers"),
	engines.RefusedField("spec.worker.volumeMounts", "Sluice's JuiceFS engine mounts no extra volumes (spec.volumes is refused too); remove the field"),
}

// DatasetFields are the fields of a Dataset that this engine serves which
// it cannot honour: refused by Values, and by the webhook when the Dataset
// is admitted while its runtime exists. Other Dataset fields are not
// classified per engine.
var DatasetFields = engines.Fields{
	engines.RefusedField("spec.mounts[1]", "Sluice's JuiceFS engine mounts one JuiceFS volume, spec.mounts[0]; give the Dataset one mount"),
	engines.RefusedField("spec.owner", "Sluice's JuiceFS engine does not set the owner of the dataset's files; remove the field"),
}
