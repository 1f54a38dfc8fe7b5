package trust

import (
	"slices"
	"strings"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Table is the tenant trust model: every field of every data.fluid.io
// kind, by the rows below or (Refused) by its engine's field table. Its
// tests fail on a field no row classifies. docs/security.md shows it.
var Table = []Section{
	{Kinds: runtimeKinds, Rows: runtimeRows},
	{Kinds: []string{"JuiceFSRuntime"}, Rows: juicefsRows},
	{Kinds: []string{"AlluxioRuntime"}, Rows: alluxioRows},
	{Kinds: []string{"JindoRuntime"}, Rows: jindoRows},
	{Kinds: []string{"ThinRuntime"}, Rows: thinRows},
	{Kinds: []string{"ThinRuntimeProfile"}, Rows: []Row{
		platform("spec", "ThinRuntimeProfile is cluster-scoped: the platform team's template of a FUSE program, never a namespace user's"),
		platform("status", statusNote),
	}},
	{Kinds: []string{"Dataset"}, Rows: datasetRows},
	{Kinds: operationKinds, Rows: operationRows},
	{Kinds: []string{"DataLoad"}, Rows: dataloadRows},
	{Kinds: []string{"DataMigrate"}, Rows: datamigrateRows},
	{Kinds: []string{"DataBackup"}, Rows: []Row{
		guarded("spec.backupPath", "local-mount", "where the backup is written: a local:// path is a host directory the backup Job mounts; pvc:// stays in the namespace"),
		safe("spec.dataset", "the Dataset backed up, in the operation's namespace"),
	}},
	{Kinds: []string{"DataProcess"}, Rows: dataprocessRows},
	{Kinds: datav1alpha1.RefusedKinds(), Rows: []Row{
		refused("spec", refusedNote),
		platform("status", "no controller writes or reads it: no object of the kind is admitted"),
	}},
	// CacheRuntimeClass has no spec: its fields are at the top.
	{Kinds: []string{"CacheRuntimeClass"}, Rows: []Row{
		refused("fileSystemType", refusedNote),
		refused("topology", refusedNote),
		refused("extraResources", refusedNote),
		refused("dataOperationSpecs", refusedNote),
	}},
}

// refusedNote is why a field of a kind Sluice serves but refuses
// (datav1alpha1.RefusedKinds) reaches nothing.
const refusedNote = "the kind is served with Fluid's schema but refused: its CRD refuses every create and every change, and no controller reads it"

const statusNote = "written by the controller through the status subresource; the chart's roles grant namespace users no status rights"

// runtimeKinds are the API's runtime kinds.
var runtimeKinds = func() []string {
	var out []string
	for _, k := range datav1alpha1.RuntimeKinds() {
		out = append(out, k.Kind)
	}
	return out
}()

// runtimeRows hold for every engine; an engine's section refines them.
var runtimeRows = []Row{
	platform("status", statusNote),
	safe("spec.replicas", "the number of workers"),
	safe("spec.disablePrometheus", "no metrics port"),
	safe("spec.imagePullSecrets", "Secrets of the runtime's namespace the kubelet pulls with"),
	safe("spec.*.imagePullSecrets", "Secrets of the runtime's namespace the kubelet pulls with"),
	safe("spec.*.imageTag", "the tag of an image whose repository the image-registry rule judges"),
	safe("spec.*.imagePullPolicy", "checked to be one of Always, IfNotPresent, Never"),
	safe("spec.podMetadata", podMetadataNote),
	safe("spec.*.podMetadata", podMetadataNote),
	safe("spec.*.resources", "container resources"),
	safe("spec.*.nodeSelector", "nodes the component may run on (FUSE also needs the Dataset's node label, which only the CSI plugin sets)"),
	safe("spec.*.networkMode", "host or pod network; a component on the host network has its env, mounts, probes and JVM options judged by "+RulePrivileged),
	safe("spec.*.enabled", "warned: has no effect"),
	safe("spec.*.replicas", "the number of the component's pods"),
	safe("spec.*.cleanPolicy", "when the CSI plugin stops a node's FUSE"),
	safe("spec.management", "the controller's metadata sync and cache cleanup bounds"),
	guarded("spec.tieredstore.levels[].path", "tieredstore-path", "cache directories: a hostPath level's path must be under the namespace's allowed prefixes"),
	guarded("spec.tieredstore.levels[].quota", "namespace-cache-budget", "the cache size, counted in the namespace's cache budget"),
	guarded("spec.tieredstore.levels[].quotaList", "namespace-cache-budget", "the size of each directory, counted in the namespace's cache budget"),
	safe("spec.tieredstore.levels[].mediumtype", "the tier's medium (MEM is judged against the worker memory limit)"),
	safe("spec.tieredstore.levels[].volumeType", "hostPath or emptyDir (a hostPath level's path is judged)"),
	safe("spec.tieredstore.levels[].volumeSource", "emptyDir settings only (other sources are refused by the engine)"),
	safe("spec.tieredstore.levels[].high", "an eviction watermark"),
	safe("spec.tieredstore.levels[].low", "an eviction watermark"),
	guarded("spec.volumes", "host-path-volume", "volumes of the engine's pods: a hostPath volume must be under the allowed prefixes; any volume reaches a container only through a volumeMounts field, which "+RulePrivileged+" judges in a container with host privileges"),
	safe("spec.runAs", "uid and gid of the engine's unprivileged processes"),
}

const podMetadataNote = "labels and annotations of the engine's pods; a container reads them only through a downwardAPI volume, mounted only through a judged volumeMounts field"

var juicefsRows = []Row{
	guarded("spec.juicefsVersion.image", "image-registry", "image of workers and FUSE"),
	guarded("spec.fuse.image", "image-registry", "image of the FUSE container"),
	env("spec.worker.env", juicefsWorker, "", false),
	priv("spec.worker.volumeMounts", juicefsWorker),
	env("spec.fuse.env", juicefsFuse, "", false),
	priv("spec.fuse.volumeMounts", juicefsFuse),
	safe("spec.worker.options", "data: JuiceFS mount flags, each one argv element of the client (unknown names refused; cache-dir and cache-size are judged as a cache)"),
	safe("spec.fuse.options", "data: JuiceFS mount flags, each one argv element of the client (unknown names refused; cache-dir and cache-size are judged as a cache)"),
	safe("spec.configs", "data: `juicefs format`/`auth` flags, argv elements of the unprivileged format step"),
	safe("spec.volumeClaimTemplates", "claims in the runtime's namespace, reaching a container only through the judged spec.worker.volumeMounts"),
}

const (
	juicefsWorker = "the privileged JuiceFS worker container"
	juicefsFuse   = "the privileged JuiceFS FUSE container"
)

var alluxioRows = append([]Row{
	guarded("spec.alluxioVersion.image", "image-registry", "image of masters and workers"),
	guarded("spec.fuse.image", "image-registry", "image of the FUSE container"),
	jvm("spec.jvmOptions", "the privileged Alluxio FUSE container (and every Alluxio process)", ""),
	safe("spec.properties", "data: alluxio-site.properties (cache-placing properties are refused by the engine)"),
	safe("spec.*.properties", "data: alluxio-site.properties (cache-placing properties are refused by the engine)"),
	env("spec.fuse.env", alluxioFuse, "", false),
	priv("spec.fuse.volumeMounts", alluxioFuse),
	jvm("spec.fuse.jvmOptions", alluxioFuse, ""),
	args("spec.fuse.args", alluxioFuse),
	safe("spec.hadoopConfig", "data: a ConfigMap of the runtime's namespace whose hdfs-site.xml and core-site.xml are mounted read-only as configuration files (never executed) into the masters, workers and "+alluxioFuse),
	safe("spec.data.replicas", "data: alluxio.user.file.replication.max in alluxio-site.properties"),
	safe("spec.initUsers", "warned: has no effect (no init-users container runs)"),
	guarded("spec.initUsers.image", "image-registry", "warned: reaches no pod (no init-users container runs), yet judged like every image"),
},
	append(hostNetRows("master", "the Alluxio master container", "spec.master.networkMode", false),
		append(hostNetRows("jobMaster", "the Alluxio job master container", "spec.master.networkMode", false),
			append(hostNetRows("apiGateway", "the Alluxio proxy container", "spec.master.networkMode", false),
				append(hostNetRows("worker", "the Alluxio worker container", "spec.worker.networkMode", false),
					hostNetRows("jobWorker", "the Alluxio job worker container", "spec.worker.networkMode", false)...)...)...)...)...)

const alluxioFuse = "the privileged Alluxio FUSE container"

var jindoRows = append([]Row{
	guarded("spec.jindoVersion.image", "image-registry", "image of masters and workers"),
	guarded("spec.fuse.image", "image-registry", "image of the FUSE container"),
	env("spec.fuse.env", jindoFuse, "", false),
	args("spec.fuse.args", jindoFuse),
	safe("spec.properties", "data: JindoCache's configuration file (cache-placing properties are refused by the engine)"),
	safe("spec.*.properties", "data: JindoCache's configuration file (cache-placing properties are refused by the engine)"),
	safe("spec.labels", "labels of the engine's pods"),
	safe("spec.*.labels", "labels of the component's pods"),
	guarded("spec.*.tolerations", "toleration", "tolerations of the component's pods: reserved taints are refused"),
	safe("spec.*.disabled", "runs no pods of the component"),
	safe("spec.networkmode", "host or pod network of every pod; on the host network their env, mounts and ports are judged by "+RulePrivileged),
	safe("spec.user", "data: the user JindoCache runs as (RUN_AS_USER), checked to be a user name"),
	safe("spec.secret", "data: a Secret of the runtime's namespace holding an STS token, mounted read-only as a file"),
	safe("spec.*.logConfig", "data: JindoCache's log configuration"),
	safe("spec.logConfig", "data: JindoCache's log configuration"),
	safe("spec.cleanCachePolicy", "bounds of the controller's cache cleanup"),
},
	append(hostNetRows("master", "the JindoCache master container", "spec.networkmode", true),
		hostNetRows("worker", "the JindoCache worker container", "spec.networkmode", true)...)...)

const jindoFuse = "the privileged JindoCache FUSE container"

var thinRows = []Row{
	safe("spec.profileName", "which of the platform's ThinRuntimeProfiles the runtime runs"),
	guarded("spec.fuse.image", "image-registry", "image of the FUSE container (an override of the profile's is also judged by thin-override)"),
	guarded("spec.worker.image", "image-registry", "image of the workers (an override of the profile's is also judged by thin-override)"),
	guarded("spec.fuse.command", "thin-override", "the FUSE program: overriding the profile's needs the profile's or the platform's consent"),
	guarded("spec.fuse.args", "thin-override", "the FUSE program's arguments: overriding the profile's needs the profile's or the platform's consent"),
	safe("spec.fuse.options", "data: mount options, in the FUSE program's config file and one environment value it parses"),
	env("spec.fuse.env", thinFuse, "", false),
	priv("spec.fuse.volumeMounts", thinFuse),
	priv("spec.fuse.lifecycle", thinFuse),
	priv("spec.fuse.livenessProbe", thinFuse),
	priv("spec.fuse.readinessProbe", thinFuse),
	priv("spec.fuse.ports", thinFuse),
	env("spec.worker.env", thinWorker, "spec.worker.networkMode", true),
	hostNet("spec.worker.volumeMounts", thinWorker, "spec.worker.networkMode", true),
	hostNet("spec.worker.livenessProbe", thinWorker, "spec.worker.networkMode", true),
	hostNet("spec.worker.readinessProbe", thinWorker, "spec.worker.networkMode", true),
	hostNet("spec.worker.ports", thinWorker, "spec.worker.networkMode", true),
}

const (
	thinFuse   = "the privileged Thin FUSE container"
	thinWorker = "the Thin worker container"
)

// hostNetRows are the judged fields of an engine component that runs
// unprivileged, on the host network when networkAt says so.
func hostNetRows(component, container, networkAt string, hostByDefault bool) []Row {
	p := "spec." + component + "."
	rows := []Row{
		env(p+"env", container, networkAt, hostByDefault),
		hostNet(p+"volumeMounts", container, networkAt, hostByDefault),
		hostNet(p+"ports", container, networkAt, hostByDefault),
	}
	if strings.HasPrefix(container, "the JindoCache") {
		return rows // JindoCache is no JVM
	}
	return append(rows, Row{Path: p + "jvmOptions", Class: Guarded, Rule: RulePrivileged, Note: "JVM flags of " + container + ", each judged against the allowed patterns",
		Host: &Host{Container: container, NetworkAt: networkAt, HostByDefault: hostByDefault, Each: "jvmOptions"}})
}

var datasetRows = []Row{
	platform("status", statusNote),
	guarded("spec.mounts[].mountPoint", "local-mount", "where the data is: a local:// mount point is a host directory the engine's pods mount; other schemes are data (the mount-scheme rule judges them)"),
	safe("spec.mounts[]", "data: a mount's name, path, options and Secret references, handed to the engine as configuration"),
	safe("spec.sharedOptions", "data: options of every mount"),
	safe("spec.sharedEncryptOptions", "data: Secret references of the Dataset's namespace"),
	safe("spec.owner", "data: the uid and gid of the dataset's files"),
	safe("spec.nodeAffinity", "nodes the engine's pods may run on"),
	guarded("spec.tolerations", "toleration", "tolerations of the engine's pods: reserved taints are refused"),
	safe("spec.accessModes", "the PV's access modes"),
	safe("spec.runtimes", "the runtime the Dataset is bound to, in its namespace"),
	safe("spec.placement", "exclusive or shared nodes"),
	guarded("spec.dataRestoreLocation", "local-mount", "where a backup to restore from is: a local:// path is a host directory"),
}

// operationKinds are the API's data-operation kinds, sorted.
var operationKinds = func() []string {
	var out []string
	for _, k := range datav1alpha1.OperationKinds() {
		out = append(out, string(k))
	}
	slices.Sort(out)
	return out
}()

// operationRows hold for every data operation. Their Jobs run
// unprivileged in the operation's namespace (engines/workloads/dataop).
var operationRows = []Row{
	platform("status", statusNote),
	safe("spec.runAfter", "the operation this one waits for, in its namespace (the operation-run-after-namespace rule)"),
	safe("spec.ttlSecondsAfterFinished", "when the controller deletes the finished operation"),
	safe("spec.runAs", "uid and gid of the operation's unprivileged Job"),
	safe("spec.policy", "Once, Cron or OnEvent"),
	safe("spec.schedule", "a cron schedule"),
	safe("spec.podMetadata", "labels and annotations of the operation's unprivileged pods"),
	safe("spec.affinity", "where the operation's unprivileged pods run"),
	safe("spec.nodeSelector", "where the operation's unprivileged pods run"),
	safe("spec.schedulerName", "the scheduler of the operation's unprivileged pods"),
	safe("spec.resources", "resources of the operation's unprivileged pods"),
	guarded("spec.tolerations", "toleration", "tolerations of the operation's pods: reserved taints are refused"),
	safe("spec.options", "data: options of the engine's load or sync command, argv elements"),
	safe("spec.dataset", "the Dataset operated on, in the operation's namespace (operation-dataset-namespace)"),
}

var dataloadRows = []Row{
	safe("spec.loadMetadata", "loads metadata first"),
	safe("spec.target", "data: paths within the Dataset, argv elements of the load command"),
}

var datamigrateRows = []Row{
	safe("spec.image", "image of the unprivileged migrate Job in the operation's namespace"),
	safe("spec.imageTag", "image tag of the unprivileged migrate Job"),
	safe("spec.imagePullPolicy", "checked to be one of Always, IfNotPresent, Never"),
	safe("spec.from.dataset", "a Dataset of the operation's namespace"),
	safe("spec.to.dataset", "a Dataset of the operation's namespace"),
	guarded("spec.from.externalStorage.uri", "local-mount", "external storage: a local:// URI is a host directory the Job mounts"),
	guarded("spec.to.externalStorage.uri", "local-mount", "external storage: a local:// URI is a host directory the Job mounts"),
	safe("spec.from.externalStorage.encryptOptions", "Secret references of the operation's namespace"),
	safe("spec.to.externalStorage.encryptOptions", "Secret references of the operation's namespace"),
	safe("spec.block", "whether readers wait for the migration"),
	safe("spec.runtimeType", "which engine migrates"),
	safe("spec.parallelism", "the number of unprivileged migrate workers"),
	safe("spec.parallelOptions", "data: options of the parallel migration"),
}

var dataprocessRows = []Row{
	guarded("spec.processor.job.podSpec", "process-privilege", "the processing pod: host namespaces, privileged containers, added capabilities, host-level security settings and node-level volumes are judged; hostPath volumes by host-path-volume, tolerations by toleration"),
	safe("spec.processor.serviceAccountName", "a ServiceAccount of the operation's namespace (as any Pod of the namespace may name)"),
	guarded("spec.processor.podMetadata", "process-privilege", "labels and annotations of the processing pod: the AppArmor and seccomp unconfined annotations are judged as those privileges"),
	safe("spec.processor.script", "an unprivileged container of the operation's namespace: image, command, script, env and mounts"),
	guarded("spec.processor.script.volumes", "process-privilege", "volumes of the processing pod: types other than configMap, secret, downwardAPI, projected, emptyDir, persistentVolumeClaim and ephemeral are judged as privileges, hostPath by host-path-volume"),
	safe("spec.dataset.name", "a Dataset of the operation's namespace"),
	safe("spec.dataset.namespace", "must be the operation's namespace"),
	safe("spec.dataset.mountPath", "where the processing pod mounts the Dataset"),
	safe("spec.dataset.subPath", "a sub-path of the Dataset, resolved by the kubelet as a volume subPath"),
}

func safe(path, note string) Row { return Row{Path: path, Class: TenantSafe, Note: note} }

func platform(path, note string) Row { return Row{Path: path, Class: PlatformOwned, Note: note} }

func refused(path, note string) Row { return Row{Path: path, Class: Refused, Note: note} }

func guarded(path, rule, note string) Row {
	return Row{Path: path, Class: Guarded, Rule: rule, Note: note}
}

// priv is a field that reaches a privileged container: judged always.
func priv(path, container string) Row {
	return Row{Path: path, Class: Guarded, Rule: RulePrivileged, Note: "reaches " + container, Host: &Host{Container: container}}
}

// hostNet is a field of a container that runs on the host network when
// the field at networkAt says so.
func hostNet(path, container, networkAt string, hostByDefault bool) Row {
	return Row{Path: path, Class: Guarded, Rule: RulePrivileged, Note: "reaches " + container + ", judged when it runs on the host network",
		Host: &Host{Container: container, NetworkAt: networkAt, HostByDefault: hostByDefault}}
}

// jvm is a list of JVM options reaching a privileged container: each is
// judged against the platform's allowed patterns.
func jvm(path, container, networkAt string) Row {
	return Row{Path: path, Class: Guarded, Rule: RulePrivileged, Note: "JVM flags of " + container + ", each judged against the allowed patterns",
		Host: &Host{Container: container, NetworkAt: networkAt, Each: "jvmOptions"}}
}

// env is an environment reaching a container with host privileges
// (while networkAt says so, when set): each variable is judged by its
// name against the allowed patterns.
func env(path, container, networkAt string, hostByDefault bool) Row {
	return Row{Path: path, Class: Guarded, Rule: RulePrivileged, Note: "environment of " + container + ", each variable's name judged against the allowed patterns",
		Host: &Host{Container: container, NetworkAt: networkAt, HostByDefault: hostByDefault, Each: "envNames"}}
}

// args is a FUSE program's argument list: each element is judged against
// the platform's allowed patterns (mount options).
func args(path, container string) Row {
	return Row{Path: path, Class: Guarded, Rule: RulePrivileged, Note: "arguments of " + container + ", each judged against the allowed patterns",
		Host: &Host{Container: container, Each: "fuseArgs"}}
}
