package thin

import "github.com/sluice-data/sluice/engines"

// Fields is the ThinRuntime field table and ProfileFields the
// ThinRuntimeProfile's: what this engine does with each spec field. Values
// refuses the refused ones (Fields.Refuse) and the validating webhook denies
// them at admission and warns on the warned ones.
var (
	Fields        engines.Fields
	ProfileFields engines.Fields
	// ReferenceFields is the table of a ThinRuntime without
	// spec.profileName, which serves a reference dataset from the
	// referenced Dataset's cache and FUSE (controller/reference): none of
	// its fields acts, so each is warned (Fluid ignores them).
	ReferenceFields engines.Fields
)

func init() {
	Fields = engines.Fields{
		engines.WarnedField("spec.disablePrometheus", "has no effect: the Thin engine exports no metrics"),
		engines.HonouredField("spec.imagePullSecrets", "pull secrets of every pod, merged with the profile's"),
		engines.OutsideChartField("spec.management.metadataSyncPolicy", "the controller's metadata Job", "autoSync true counts the Dataset's files and bytes (ufsTotal, fileNum) with a metadata Job; unset or false counts nothing, as in Fluid"),
		engines.OutsideChartField("spec.profileName", "the reconciler, which reads the named ThinRuntimeProfile the release is built from", "the ThinRuntimeProfile the runtime runs"),
		engines.HonouredField("spec.replicas", "number of workers"),
		engines.RefusedField("spec.runAs", "Sluice's Thin engine does not run the FUSE program as another user; set the user in the image or in spec.fuse's command"),
		engines.WarnedField("spec.tieredstore.levels[].high", "has no effect: the FUSE program manages its own cache"),
		engines.WarnedField("spec.tieredstore.levels[].low", "has no effect: the FUSE program manages its own cache"),
		engines.HonouredField("spec.tieredstore.levels[].mediumtype", "MEM makes emptyDir cache volumes memory-backed"),
		engines.HonouredField("spec.tieredstore.levels[].path", "cache volumes of the workers and FUSE, at these paths"),
		engines.HonouredField("spec.tieredstore.levels[].quota", "size limit of emptyDir cache volumes, split over the paths"),
		engines.HonouredField("spec.tieredstore.levels[].quotaList", "size limit of each path's emptyDir cache volume"),
		{Path: "spec.tieredstore.levels[].volumeSource", Support: engines.Honoured, Check: engines.EmptyDirOnly,
			Note: "emptyDir medium and sizeLimit of the cache volumes"},
		engines.HonouredField("spec.tieredstore.levels[].volumeType", "hostPath or emptyDir cache volumes"),
		engines.HonouredField("spec.volumes", "extra volumes, merged by name over the profile's"),
	}
	Fields = append(Fields, engines.CleanCachePolicyFields("spec.management")...)
	Fields = append(Fields, componentFields("runtime's, over the profile's")...)
	ProfileFields = engines.Fields{
		engines.OutsideChartField("spec.fileSystemType", "the Dataset's PV (mount_type), checked by the CSI plugin", "the FUSE mount's file-system type"),
		engines.HonouredField("spec.imagePullSecrets", "pull secrets of every pod of the runtimes using the profile"),
		{Path: "spec.nodePublishSecretPolicy", Support: engines.Warned, Default: "MountNodePublishSecretIfExists",
			Note: "has no effect: Sluice's PVs carry no node-publish secret, so FUSE gets none whatever the policy"},
		engines.HonouredField("spec.volumes", "volumes of the pods, which the runtime's extend"),
	}
	ProfileFields = append(ProfileFields, componentFields("profile's, under the runtime's")...)
	for _, f := range Fields {
		f.Support, f.Check, f.ActsOutsideChart = engines.Warned, nil, ""
		f.Note = "has no effect on the ThinRuntime of a reference dataset (no spec.profileName), which serves the referenced Dataset's cache and FUSE"
		ReferenceFields = append(ReferenceFields, f)
	}
}

// componentFields are the rows of spec.fuse and spec.worker, which a
// ThinRuntime and its profile share; whose says whose they are.
func componentFields(whose string) engines.Fields {
	out := engines.Fields{
		engines.HonouredField("spec.fuse.args", "arguments of the FUSE program ("+whose+")"),
		engines.OutsideChartField("spec.fuse.cleanPolicy", "the Dataset's PV, read by the CSI plugin", "when a node's FUSE pod is stopped ("+whose+")"),
		engines.HonouredField("spec.fuse.command", "command of the FUSE container ("+whose+")"),
		engines.HonouredField("spec.fuse.lifecycle", "lifecycle hooks of the FUSE container ("+whose+")"),
		engines.HonouredField("spec.fuse.options", "FUSE options in config.json ("+whose+", merged by name)"),
		engines.HonouredField("spec.fuse.podMetadata", "labels and annotations of the FUSE pods ("+whose+")"),
	}
	for _, c := range []string{"fuse", "worker"} {
		p := "spec." + c + "."
		out = append(out,
			engines.HonouredField(p+"env", "environment of the "+c+" container ("+whose+", merged by name)"),
			engines.HonouredField(p+"image", c+" image ("+whose+")"),
			engines.HonouredField(p+"imagePullPolicy", c+" image pull policy ("+whose+")"),
			engines.HonouredField(p+"imagePullSecrets", "pull secrets of the "+c+" pods ("+whose+")"),
			engines.HonouredField(p+"imageTag", c+" image tag ("+whose+")"),
			engines.HonouredField(p+"livenessProbe", "liveness probe of the "+c+" container ("+whose+")"),
			engines.HonouredField(p+"networkMode", "host or pod network of the "+c+" pods ("+whose+")"),
			engines.HonouredField(p+"nodeSelector", "nodes the "+c+" pods may run on ("+whose+")"),
			engines.HonouredField(p+"ports", "ports of the "+c+" container ("+whose+", merged by name)"),
			engines.HonouredField(p+"readinessProbe", "readiness probe of the "+c+" container ("+whose+")"),
			engines.HonouredField(p+"resources", "resources of the "+c+" container ("+whose+")"),
			engines.HonouredField(p+"volumeMounts", "mounts of spec.volumes in the "+c+" container ("+whose+", merged by name)"),
		)
	}
	return append(out,
		engines.HonouredField("spec.worker.enabled", "runs workers ("+whose+")"),
		engines.HonouredField("spec.worker.replicas", "number of workers when spec.replicas is 0 ("+whose+")"),
	)
}

// DatasetFields are the fields of a Dataset that this engine serves which
// it cannot honour: refused by Values, and by the webhook when the Dataset
// is admitted while its runtime exists. Other Dataset fields are not
// classified per engine.
var DatasetFields = engines.Fields{
	engines.RefusedField("spec.owner", "Sluice's Thin engine does not set the owner of the dataset's files (neither does Fluid's: only its Alluxio engine sets the FUSE mount's uid and gid); remove the field"),
	engines.RefusedField("spec.dataRestoreLocation", "Sluice's Thin engine cannot restore a Dataset from a DataBackup (DataBackup is Alluxio's); remove the field"),
}
