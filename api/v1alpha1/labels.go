package v1alpha1

// Well-known label and annotation keys. They are Fluid's, so that Pods,
// PVCs and nodes labelled for Fluid work with Sluice unchanged.

// Pod labels and annotations read by the mutating webhook.
const (
	// LabelServerlessInject ("true") asks for FUSE sidecar injection.
	LabelServerlessInject = "serverless.fluid.io/inject"
	// LabelFuseSidecarInject is the deprecated alias of LabelServerlessInject.
	LabelFuseSidecarInject = "fuse.sidecar.fluid.io/inject"
	// LabelServerfulInject ("true") asks for data-affinity scheduling of a Pod
	// that reads datasets through the CSI plugin.
	LabelServerfulInject = "fuse.serverful.fluid.io/inject"
	// LabelUnprivilegedSidecarInject ("true") injects the FUSE sidecar
	// without privileges.
	LabelUnprivilegedSidecarInject = "unprivileged.sidecar.fluid.io/inject"
	// LabelWorkerSidecarInject is defined by Fluid and not used by its webhook.
	LabelWorkerSidecarInject = "worker.sidecar.fluid.io/inject"
	// LabelCacheDirInject ("true") keeps the runtime's cache-dir volumes in
	// an injected sidecar.
	LabelCacheDirInject = "cachedir.sidecar.fluid.io/inject"
	// LabelFuseSidecarPostStartInject ("false") skips the sidecar's blocking
	// mount check.
	LabelFuseSidecarPostStartInject = "fuse.sidecar.poststart.fluid.io/inject"
	// LabelAppPostStartInject ("true") makes app containers wait for mounts.
	LabelAppPostStartInject = "app.poststart.fluid.io/inject"
	// LabelInjectionDone ("true") marks a Pod the webhook has mutated; a Pod
	// carrying it is left alone, which makes re-invocation a no-op.
	LabelInjectionDone = "done.sidecar.fluid.io/inject"
	// LabelEnableInjection ("false") opts a Pod out of every mutation.
	LabelEnableInjection = "fluid.io/enable-injection"
	// AnnotationServerlessPlatform names the sidecar platform of a Pod;
	// annotations "<platform>.fluid.io/*" then pass extra arguments.
	AnnotationServerlessPlatform = "serverless.fluid.io/platform"
	// FuseSidecarContainerPrefix starts the name of every FUSE container
	// the webhook injects (fluid-fuse-0, fluid-fuse-1, ...), as in Fluid.
	FuseSidecarContainerPrefix = "fluid-fuse-"
	// AnnotationAppsDone ("true") is set by the controller on a Pod whose
	// FUSE sidecars are regular containers (sidecar mode container) once
	// every app container has ended for good; the sidecars' entrypoint
	// wrapper reads it through the downward API and stops the FUSE process,
	// so that the Pod (a Job's) completes. Sluice-specific.
	AnnotationAppsDone = "sidecar.sluice.io/apps-done"
	// AnnotationMutations is set by the mutating webhook on each Pod it
	// changes: what each mutation rule injected, e.g. "affinity: required
	// fluid.io/s-default-imagenet; sidecar: volume data (dataset
	// default/imagenet)". Sluice-specific.
	AnnotationMutations = "policy.sluice.io/mutations"
	// AnnotationSkipPrecheck ("true") admits a Pod whose dataset is not Bound.
	AnnotationSkipPrecheck = "sidecar.fluid.io/skip-precheck"
	// AnnotationHostMountPathMode ("random-suffix") gives each Pod a unique
	// host mount directory for its FUSE sidecar.
	AnnotationHostMountPathMode = "default.fuse-sidecar.fluid.io/host-mount-path-mode"
	// HostMountPathModeRandomSuffix is the value of AnnotationHostMountPathMode
	// that asks for a unique directory.
	HostMountPathModeRandomSuffix = "random-suffix"
	// AnnotationFilePrefetcherPrefix prefixes the file prefetcher's annotations.
	AnnotationFilePrefetcherPrefix = "file-prefetcher.fluid.io/"
	// AnnotationDataflowAffinityLabels on a data operation names, comma
	// separated, node label keys to record in its status.nodeAffinity
	// besides the node, region and zone, so that an operation after it
	// (spec.runAfter.affinityStrategy) may require or prefer them, as
	// Fluid's dataflow does.
	AnnotationDataflowAffinityLabels = "affinity.dataflow.fluid.io/labels"
	// AnnotationDatasetsInUse is set by the webhook to the sorted,
	// comma-separated names of the datasets a Pod uses.
	AnnotationDatasetsInUse = "fluid.io/datasets-in-use"
	// AnnotationPrometheusFuseScrape ("true") marks a Pod whose FUSE sidecar
	// exposes metrics.
	AnnotationPrometheusFuseScrape = "prometheus.fuse.fluid.io/scrape"
	// LabelSidecarDatasetNamespacePrefix + container name labels an injected
	// sidecar with its dataset's namespace.
	LabelSidecarDatasetNamespacePrefix = "dataset-namespace.sidecar.fluid.io/"
	// LabelSidecarDatasetNamePrefix + container name labels an injected
	// sidecar with its dataset's name.
	LabelSidecarDatasetNamePrefix = "dataset-name.sidecar.fluid.io/"
	// SchedRequired is the value of DatasetSchedLabelKey that asks for
	// required, rather than preferred, cache affinity.
	SchedRequired = "required"
)

// Labels and annotations on PVs, PVCs and runtimes.
const (
	// LabelManagedBy on a PVC names the dataset it belongs to; on a Pod the
	// webhook sets it to "fluid".
	LabelManagedBy = "fluid.io/managed-by"
	// LabelWrappedBy is the deprecated alias of LabelManagedBy on PVCs.
	LabelWrappedBy = "fluid.io/wrapped-by"
	// LabelDatasetID on a dataset's PV and PVC is "<namespace>-<name>".
	LabelDatasetID = "fluid.io/dataset-id"
	// LabelDataset on engine pods is "<namespace>-<name>"; worker
	// anti-affinity is built from it.
	LabelDataset = "fluid.io/dataset"
	// LabelFuseGeneration on a dataset's PVC records the FUSE generation the
	// PVC was created for (cleanPolicy OnFuseChanged).
	LabelFuseGeneration = "fuse.runtime.fluid.io/generation"
	// AnnotationPVCStorageRequest on a Dataset sets its PV and PVC capacity.
	AnnotationPVCStorageRequest = "pvc.fluid.io/resources.requests.storage"
	// AnnotationSkipCheckMountReadyTarget on a runtime (All, MountPod or
	// Sidecar) skips the mount-ready check; it is copied to the PV.
	AnnotationSkipCheckMountReadyTarget = "fluid.io/skip-check-mount-ready-target"
	// LabelDatasetNamespace on a dataset's PV and PVC names the dataset's
	// namespace. With LabelDatasetName it identifies the dataset without the
	// ambiguity of LabelDatasetID; Sluice sets both.
	LabelDatasetNamespace = "dataset.sluice.io/namespace"
	// LabelDatasetName on a dataset's PV and PVC names the dataset.
	LabelDatasetName = "dataset.sluice.io/name"
	// AnnotationCreatedBy marks PVs and PVCs created for datasets.
	AnnotationCreatedBy = "CreatedBy"
	// AnnotationForceDelete "true" on a Dataset or runtime being deleted
	// lets its deletion go on although Pods still use the Dataset (they are
	// named in a Warning event); without it the deletion waits for them.
	AnnotationForceDelete = "data.sluice.io/force-delete"

	// AnnotationAllowOverrides on a ThinRuntimeProfile lists, comma
	// separated, what its ThinRuntimes may override: image, command
	// (command and args) and volumes. Without it the validating webhook's
	// thin-override guard refuses every override.
	AnnotationAllowOverrides = "data.sluice.io/allow-overrides"
)

// Node labels written by the controller and the CSI plugin. The per-dataset
// keys are built by the functions in labelkeys.go.
const (
	// LabelDatasetNum counts the datasets cached on a node.
	LabelDatasetNum = "fluid.io/dataset-num"
	// LabelExclusive is "<namespace>_<name>" on a node given to one dataset
	// in Exclusive placement.
	LabelExclusive = "fluid_exclusive"
	// LabelNodeLocality is the locality name of "the node holds the cache"
	// in tiered-locality policy data; it stands for the dataset's cache label.
	LabelNodeLocality = "fluid.io/node"
	// LabelFuseLocality is the locality name of "the node runs the dataset's
	// FUSE" in tiered-locality policy data.
	LabelFuseLocality = "fluid.io/fuse"
)

// CSI volume attributes of a dataset's PV.
const (
	// CSIDriverName is the CSI driver that mounts datasets into Pods.
	CSIDriverName = "fuse.csi.fluid.io"
	// VolumeAttrFluidPath is the host directory of the FUSE mount.
	VolumeAttrFluidPath = "fluid_path"
	// VolumeAttrMountType is the FUSE file-system type, e.g. fuse.juicefs.
	VolumeAttrMountType = "mount_type"
	// VolumeAttrSubPath is the directory of the FUSE mount that is published.
	VolumeAttrSubPath = "fluid_sub_path"
	// VolumeAttrRuntimeNamespace is the runtime's namespace.
	VolumeAttrRuntimeNamespace = "runtime_namespace"
	// VolumeAttrRuntimeName is the runtime's name.
	VolumeAttrRuntimeName = "runtime_name"
	// VolumeAttrNodeSelectorKey is the node label that starts FUSE on a node.
	VolumeAttrNodeSelectorKey = "mount_pod_node_selector_key"
	// FuseDaemonSetSuffix is appended to a runtime's name to name its FUSE
	// DaemonSet, e.g. imagenet-fuse; the mutating webhook copies its first
	// container as the FUSE sidecar.
	FuseDaemonSetSuffix = "-fuse"
	// VolumeAttrFuseCleanPolicy is the runtime's FUSE cleanPolicy, which
	// NodeUnstageVolume applies (Sluice-specific; default OnRuntimeDeleted).
	VolumeAttrFuseCleanPolicy = "fuse_clean_policy"
	// VolumeAttrNodePublishMethod is "symlink" to publish by symlink.
	VolumeAttrNodePublishMethod = "node_publish_method"
)

// FailClosedLabels are the labels ("true") that send a Pod to the
// fail-closed mutating webhook (labelled-pods, failurePolicy Fail, matched
// by the webhook configurations' labelled-for-fluid condition): the Pod
// asked for injection, and is refused rather than admitted half-done. Any
// other Pod reaches the fail-open one (claim-pods), whose mutation is an
// optimisation.
var FailClosedLabels = []string{LabelServerlessInject, LabelFuseSidecarInject, LabelServerfulInject}

// AskedForInjection reports whether labels carry one of FailClosedLabels
// set to "true".
func AskedForInjection(labels map[string]string) bool {
	for _, k := range FailClosedLabels {
		if labels[k] == "true" {
			return true
		}
	}
	return false
}

// ForceDeletion says whether obj carries AnnotationForceDelete "true".
func ForceDeletion(obj interface{ GetAnnotations() map[string]string }) bool {
	return obj.GetAnnotations()[AnnotationForceDelete] == "true"
}
