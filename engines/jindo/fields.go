package jindo

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/engines"
)

// Fields is the JindoRuntime field table: what this engine does with each
// spec field. Values refuses the refused ones (Fields.Refuse) and the
// validating webhook denies them at admission and warns on the warned ones.
var Fields = engines.Fields{
	engines.HonouredField("spec.fuse.args", "arguments of the FUSE client"),
	engines.OutsideChartField("spec.fuse.cleanPolicy", "the Dataset's PV, read by the CSI plugin", "when a node's FUSE pod is stopped"),
	engines.HonouredField("spec.fuse.disabled", "runs no FUSE DaemonSet"),
	engines.HonouredField("spec.fuse.env", "environment of the FUSE container"),
	engines.HonouredField("spec.fuse.image", "FUSE image"),
	engines.HonouredField("spec.fuse.imagePullPolicy", "FUSE image pull policy"),
	engines.HonouredField("spec.fuse.imagePullSecrets", "pull secrets of the FUSE pods (spec.imagePullSecrets when empty)"),
	engines.HonouredField("spec.fuse.imageTag", "FUSE image tag"),
	engines.HonouredField("spec.fuse.labels", "labels of the FUSE pods"),
	plainProperties("spec.fuse.logConfig", "logging properties of the FUSE client"),
	engines.RefusedField("spec.fuse.metrics", "Sluice's Jindo engine does not configure FUSE metrics scraping; remove the field"),
	engines.HonouredField("spec.fuse.nodeSelector", "nodes FUSE may run on, with the Dataset's FUSE label"),
	engines.HonouredField("spec.fuse.podMetadata", "labels and annotations of the FUSE pods"),
	plainProperties("spec.fuse.properties", "JindoCache client properties"),
	engines.HonouredField("spec.fuse.resources", "FUSE container resources"),
	engines.HonouredField("spec.fuse.tolerations", "tolerations of the FUSE pods"),
	engines.RefusedField("spec.hadoopConfig", "Sluice's Jindo engine does not mount Hadoop configuration; give HDFS settings as fs.* mount options"),
	engines.HonouredField("spec.imagePullSecrets", "pull secrets of every pod"),
	engines.HonouredField("spec.jindoVersion", "image, tag and pull policy of masters and workers"),
	engines.HonouredField("spec.labels", "labels of every pod"),
	plainProperties("spec.logConfig", "logging properties of every JindoCache process"),
	engines.HonouredField("spec.networkmode", "ContainerNetwork runs every pod on the pod network (host network otherwise, as in Fluid, on ports the controller allocates)"),
	engines.HonouredField("spec.podMetadata", "labels and annotations of every pod"),
	plainProperties("spec.properties", "JindoCache properties of every process"),
	engines.HonouredField("spec.replicas", "number of workers"),
	engines.HonouredField("spec.runAs", "uid and gid the JindoCache processes run as"),
	engines.HonouredField("spec.secret", "Secret holding an STS token, mounted at /token"),
	engines.HonouredField("spec.tieredstore.levels[].high", "high watermark of the cache"),
	engines.HonouredField("spec.tieredstore.levels[].low", "low watermark of the cache"),
	engines.HonouredField("spec.tieredstore.levels[].mediumtype", "MEM caches in memory (RAM cache size), others on disk"),
	engines.HonouredField("spec.tieredstore.levels[].path", "the cache directories"),
	engines.HonouredField("spec.tieredstore.levels[].quota", "the cache size, split over the directories"),
	engines.HonouredField("spec.tieredstore.levels[].quotaList", "the size of each directory"),
	{Path: "spec.tieredstore.levels[].volumeSource", Support: engines.Honoured, Check: engines.EmptyDirOnly,
		Note: "emptyDir.medium of emptyDir directories"},
	engines.HonouredField("spec.tieredstore.levels[].volumeType", "hostPath or emptyDir directories"),
	engines.RefusedField("spec.tieredstore.levels[1]", "JindoCache caches in a single tier; set only levels[0]"),
	{Path: "spec.user", Support: engines.Honoured, Check: userName,
		Note: "the user JindoCache runs as (RUN_AS_USER of every container, as Fluid sets it): a user name of letters, digits, '_' and '-'"},
	engines.HonouredField("spec.volumes", "extra volumes of the pods, mounted by the components' volumeMounts"),
}

func init() {
	Fields = append(Fields, engines.CleanCachePolicyFields("spec")...)
	for _, c := range []string{"master", "worker"} {
		p := "spec." + c + "."
		Fields = append(Fields,
			engines.HonouredField(p+"disabled", "runs no "+c+"s"),
			engines.HonouredField(p+"env", "environment of the "+c+"s"),
			engines.HonouredField(p+"imagePullSecrets", "pull secrets of the "+c+"s (spec.imagePullSecrets when empty)"),
			engines.HonouredField(p+"labels", "labels of the "+c+" pods"),
			engines.HonouredField(p+"nodeSelector", "nodes the "+c+"s may run on"),
			engines.HonouredField(p+"podMetadata", "labels and annotations of the "+c+" pods"),
			engines.HonouredField(p+"ports", "ports of the "+c+"s; on the host network the controller allocates the others (status.hostPorts)"),
			plainProperties(p+"properties", "JindoCache properties of the "+c+"s"),
			replicasRow(c),
			engines.HonouredField(p+"resources", "container resources of the "+c+"s"),
			engines.HonouredField(p+"tolerations", "tolerations of the "+c+" pods"),
			engines.HonouredField(p+"volumeMounts", "mounts of spec.volumes in the "+c+"s"),
		)
	}
}

// plainProperties is an honoured properties row that refuses credentials
// given as plain properties: they belong in a Secret (spec.secret or the
// dataset's encryptOptions), never in the ConfigMap. It refuses the
// cache properties too (cacheProperties).
func plainProperties(path, note string) engines.Field {
	f := engines.HonouredField(path, note)
	f.Check = func(v any) string {
		props, _ := v.(map[string]string)
		var bad, cache []string
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if secretLike(k) {
				bad = append(bad, k)
			}
			if _, ok := cacheProperties[k]; ok {
				cache = append(cache, k)
			}
		}
		var why []string
		if len(bad) > 0 {
			why = append(why, "credentials must come from a Secret (spec.secret or the dataset's encryptOptions), not plain properties: "+strings.Join(bad, ", "))
		}
		if len(cache) > 0 {
			why = append(why, "the cache properties "+strings.Join(cache, ", ")+" would place or size the cache outside spec.tieredstore, whose paths are judged and whose quotas count in the namespace's cache budget; set spec.tieredstore instead")
		}
		return strings.Join(why, "; ")
	}
	return f
}

// replicasRow: the masters' count is spec.master.replicas (1 or 3), the
// workers' spec.replicas.
func replicasRow(component string) engines.Field {
	if component == "master" {
		return engines.HonouredField("spec.master.replicas", "number of masters: 1, or 3 for Raft")
	}
	return engines.WarnedField("spec.worker.replicas", "has no effect: the number of workers is spec.replicas")
}

// DatasetFields are the fields of a Dataset that this engine serves which
// it cannot honour: refused by Values, and by the webhook when the Dataset
// is admitted while its runtime exists. Other Dataset fields are not
// classified per engine.
var DatasetFields = engines.Fields{
	engines.RefusedField("spec.owner", "Sluice's Jindo engine does not set the owner of the dataset's files (neither does Fluid's: only its Alluxio engine sets the FUSE mount's uid and gid); remove the field"),
	engines.RefusedField("spec.dataRestoreLocation", "Sluice's Jindo engine cannot restore a Dataset from a DataBackup (DataBackup is Alluxio's); remove the field"),
}

// userNameRE is what spec.user may be: a POSIX user name. The value
// reaches the privileged FUSE container's environment (RUN_AS_USER),
// which the image's entrypoint reads as root; nothing else is data there.
var userNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}$`)

// userName is spec.user's Check.
func userName(v any) string {
	if u, ok := v.(string); ok && !userNameRE.MatchString(u) {
		return fmt.Sprintf("%q is not a user name (a lower-case letter or '_', then up to 31 lower-case letters, digits, '_' or '-')", u)
	}
	return ""
}
