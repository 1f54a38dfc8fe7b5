package config

// Guards are the lists the default guards judge a namespace's specs by
// (docs/security.md, "Threat model and default guards";
// policies/validating/guards.rego). A list left out of a namespace's
// entry is the "*" entry's.
type Guards struct {
	// Images a runtime may set (repository, tag cut off): equal to an
	// entry, or under it ("juicedata" and "juicedata/" admit
	// juicedata/juicefs-fuse); "*" admits every image.
	ImagePrefixes []string `json:"imagePrefixes" jsonschema:"minLength=1"`
	// Node directories a hostPath tieredstore level may use (the prefix or
	// below).
	TieredstorePaths []string `json:"tieredstorePaths" jsonschema:"pattern=^/"`
	// Node directories local:// may name: Dataset mounts, a DataBackup's
	// backupPath, a DataMigrate's external storage.
	LocalPaths []string `json:"localPaths" jsonschema:"pattern=^/"`
	// Node directories a runtime's spec.volumes, or a DataProcess's pod,
	// may mount as hostPath.
	HostPathVolumes []string `json:"hostPathVolumes" jsonschema:"pattern=^/"`
	// Node directories no list above reaches, whatever its prefixes: a path
	// at or below one is refused unless the list names a directory below
	// it (as /dev/shm is below /dev); a local:// path or hostPath volume
	// above one (/, /var) is refused too, since its mount would show it.
	ReservedHostPaths []string `json:"reservedHostPaths" jsonschema:"pattern=^/"`
	// Taint keys no Dataset, runtime or data operation may tolerate. A
	// toleration of every taint (operator Exists without key) is refused
	// while this lists any.
	ReservedTaints []string `json:"reservedTaints" jsonschema:"minLength=1"`
	// Host privileges a DataProcess's pod spec may ask for: nodeName,
	// hostNetwork, hostPID, hostIPC, hostPort, probeHost, privileged,
	// allowPrivilegeEscalation, seLinuxOptions, hostProcess, "procMount
	// Unmasked", "seccompProfile Unconfined", "appArmorProfile Unconfined",
	// and by name "capability <NAME>", "sysctl <NAME>", "runtimeClass
	// <NAME>", "volume <type>" ("capability *" and so on allow every name).
	ProcessPrivileges []string `json:"processPrivileges" jsonschema:"minLength=1"`
	// What any ThinRuntime may override of its profile; a profile allows
	// more with its annotation data.sluice.io/allow-overrides.
	ThinOverrides []string `json:"thinOverrides" jsonschema:"enum=image,enum=command,enum=volumes"`
	// Fields that reach a container with host privileges and that a
	// namespace may set anyway: field paths such as spec.fuse.lifecycle,
	// or "*" (rule privileged-container).
	PrivilegedFields []string `json:"privilegedFields" jsonschema:"minLength=1"`
	// Names of the environment variables the privileged-container rule
	// admits in such a container: anchored RE2 patterns.
	EnvNames []string `json:"envNames" jsonschema:"format=regex"`
	// JVM flags the privileged-container rule admits: anchored RE2
	// patterns.
	JVMOptions []string `json:"jvmOptions" jsonschema:"format=regex"`
	// Arguments of a FUSE program (Alluxio's and JindoCache's
	// spec.fuse.args) the privileged-container rule admits: anchored RE2
	// patterns.
	FuseArgs []string `json:"fuseArgs" jsonschema:"format=regex"`
}
