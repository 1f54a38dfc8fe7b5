package alluxio

import "github.com/sluice-data/sluice/engines"

// Fields is the AlluxioRuntime field table: what this engine does with each
// spec field. Values refuses the refused ones (Fields.Refuse) and the
// validating webhook denies them at admission and warns on the warned ones.
var Fields = engines.Fields{
	engines.HonouredField("spec.alluxioVersion", "image, tag and pull policy of masters and workers (and FUSE unless spec.fuse sets its own)"),
	engines.RefusedField("spec.data.pin", "Sluice's Alluxio engine does not pin the dataset in the cache (Fluid's accepts the field and ignores it); remove it, and pin the files with `alluxio fs pin <path>` in the master container"),
	engines.HonouredField("spec.data.replicas", "the most copies of a block the workers cache (alluxio.user.file.replication.max; spec.properties may override it)"),
	engines.HonouredField("spec.disablePrometheus", "no Prometheus annotations and metrics sink on masters and workers"),
	engines.HonouredField("spec.fuse.args", "replaces the FUSE client's arguments"),
	engines.OutsideChartField("spec.fuse.cleanPolicy", "the Dataset's PV, read by the CSI plugin", "when a node's FUSE pod is stopped"),
	engines.HonouredField("spec.fuse.env", "environment of the FUSE container"),
	engines.HonouredField("spec.fuse.image", "FUSE image"),
	engines.HonouredField("spec.fuse.imagePullPolicy", "FUSE image pull policy"),
	engines.HonouredField("spec.fuse.imagePullSecrets", "pull secrets of the FUSE pods, after spec.imagePullSecrets"),
	engines.HonouredField("spec.fuse.imageTag", "FUSE image tag"),
	engines.HonouredField("spec.fuse.jvmOptions", "JVM flags of the FUSE client, after spec.jvmOptions"),
	engines.HonouredField("spec.fuse.networkMode", "ContainerNetwork runs FUSE on the pod network (host network otherwise)"),
	engines.HonouredField("spec.fuse.nodeSelector", "nodes FUSE may run on, with the Dataset's FUSE label"),
	engines.HonouredField("spec.fuse.podMetadata", "labels and annotations of FUSE pods, over spec.podMetadata"),
	propertiesRow("spec.fuse.properties", "Alluxio properties of the FUSE client"),
	engines.HonouredField("spec.fuse.resources", "FUSE container resources"),
	engines.HonouredField("spec.fuse.volumeMounts", "mounts of spec.volumes in the FUSE container"),
	engines.HonouredField("spec.hadoopConfig", "a ConfigMap of the runtime's namespace whose hdfs-site.xml and core-site.xml the masters, workers and FUSE mount read-only at /hdfs-config, named by alluxio.underfs.hdfs.configuration; the runtime waits (HadoopConfigNotFound) while it is missing or holds neither file"),
	engines.HonouredField("spec.imagePullSecrets", "pull secrets of every pod"),
	engines.WarnedField("spec.initUsers", "has no effect: Sluice runs no init-users container; the Alluxio image's entrypoint creates spec.runAs's user and group itself"),
	engines.HonouredField("spec.jvmOptions", "JVM flags of every Alluxio process"),
	engines.OutsideChartField("spec.management.metadataSyncPolicy", "the controller's metadata Job", "autoSync (default true) counts the Dataset's files and bytes (ufsTotal, fileNum) with a metadata Job; false counts nothing"),
	engines.HonouredField("spec.podMetadata", "labels and annotations of every pod"),
	propertiesRow("spec.properties", "Alluxio properties of every process"),
	engines.HonouredField("spec.replicas", "number of workers"),
	engines.HonouredField("spec.runAs", "uid, gid, user and group the Alluxio processes run as (ALLUXIO_UID/GID/USERNAME/GROUP)"),
	engines.HonouredField("spec.tieredstore.levels[].high", "high watermark of the tier"),
	engines.HonouredField("spec.tieredstore.levels[].low", "low watermark of the tier"),
	engines.HonouredField("spec.tieredstore.levels[].mediumtype", "the tier's medium (MEM, SSD, HDD)"),
	engines.HonouredField("spec.tieredstore.levels[].path", "the tier's directories"),
	engines.HonouredField("spec.tieredstore.levels[].quota", "the tier's size, split over its directories"),
	engines.HonouredField("spec.tieredstore.levels[].quotaList", "the size of each directory"),
	engines.HonouredField("spec.tieredstore.levels[].volumeSource", "the volume each directory is, in place of hostPath or emptyDir"),
	engines.HonouredField("spec.tieredstore.levels[].volumeType", "hostPath or emptyDir"),
	engines.HonouredField("spec.volumes", "volumes of the pods whose containers mount them (the components' volumeMounts)"),
}

func init() {
	Fields = append(Fields, engines.CleanCachePolicyFields("spec.management")...)
	Fields = append(Fields, apiGatewayFields()...)
	Fields = append(Fields, componentFields("master", "", "masters")...)
	Fields = append(Fields, componentFields("jobMaster", "master", "job masters")...)
	Fields = append(Fields, componentFields("worker", "", "workers")...)
	Fields = append(Fields, componentFields("jobWorker", "worker", "job workers")...)
}

// componentFields are the rows of one component: spec.<name>. A job
// master or job worker is a container in the master or worker pod (pod),
// so its pod-level fields are refused in favour of that pod's.
func componentFields(name, pod, what string) engines.Fields {
	p := "spec." + name + "."
	rows := engines.Fields{
		engines.WarnedField(p+"enabled", "has no effect: Sluice always runs the "+what),
		engines.HonouredField(p+"env", "environment of the "+what),
		engines.HonouredField(p+"jvmOptions", "JVM flags of the "+what+", after spec.jvmOptions"),
		engines.HonouredField(p+"ports", "ports of the "+what+" (Alluxio's port names); on the host network the controller allocates the others (status.hostPorts)"),
		propertiesRow(p+"properties", "Alluxio properties of the "+what+", over spec.properties"),
		engines.HonouredField(p+"resources", "container resources of the "+what),
		engines.HonouredField(p+"volumeMounts", "mounts of spec.volumes in the "+what),
	}
	if pod != "" {
		for _, f := range []string{"imagePullSecrets", "networkMode", "nodeSelector", "podMetadata"} {
			rows = append(rows, engines.RefusedField(p+f, "the "+what+" run in the "+pod+" pods; set spec."+pod+"."+f))
		}
		return append(rows, engines.WarnedField(p+"replicas", "has no effect: one runs in each "+pod+" pod"))
	}
	rows = append(rows,
		engines.HonouredField(p+"imagePullSecrets", "pull secrets of the "+what+", after spec.imagePullSecrets"),
		engines.HonouredField(p+"networkMode", "HostNetwork runs the "+what+" on the host network, on ports the controller allocates (the pod network otherwise, where Fluid's default is HostNetwork)"),
		engines.HonouredField(p+"nodeSelector", "nodes the "+what+" may run on"),
		engines.HonouredField(p+"podMetadata", "labels and annotations of the "+what+", over spec.podMetadata"),
	)
	if name == "master" {
		return append(rows, engines.HonouredField(p+"replicas", "number of masters (odd; embedded journal when above 1)"))
	}
	return append(rows, engines.WarnedField(p+"replicas", "has no effect: the number of workers is spec.replicas"))
}

// propertiesRow is an honoured properties row that refuses the
// properties placing or sizing a cache (checkCacheProperties).
func propertiesRow(path, note string) engines.Field {
	f := engines.HonouredField(path, note+"; cache properties (alluxio.worker.tieredstore.*, page store, ramdisk, client cache) belong in spec.tieredstore")
	f.Check = checkCacheProperties
	return f
}

// DatasetFields are the fields of a Dataset that this engine serves which
// depend on the engine: the refused ones are refused by Values, and by the
// webhook when the Dataset is admitted while its runtime exists. Other
// Dataset fields are not classified per engine.
var DatasetFields = engines.Fields{
	engines.HonouredField("spec.owner", "uid and gid every file of the FUSE mount shows (the uid= and gid= options in the FUSE client's --fuse-opts); without an owner, Alluxio translates its users and groups to the node's"),
	engines.HonouredField("spec.dataRestoreLocation", "a DataBackup's location (pvc://<claim>[/<subpath>], or local:///<host path> on nodeName, where the master then runs), mounted read-only in the master, which starts from the backup file of the Dataset's name there (alluxio.master.journal.init.from.backup) when its journal is new"),
}
