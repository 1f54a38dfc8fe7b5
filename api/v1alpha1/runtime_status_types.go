package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RuntimePhase summarises one component (master, worker or FUSE) of a runtime.
type RuntimePhase string

const (
	// RuntimePhaseNone means the component has not been observed yet.
	RuntimePhaseNone RuntimePhase = ""
	// RuntimePhaseNotReady means no replica of the component is ready.
	RuntimePhaseNotReady RuntimePhase = "NotReady"
	// RuntimePhasePartialReady means some, but not all, replicas are ready.
	RuntimePhasePartialReady RuntimePhase = "PartialReady"
	// RuntimePhaseReady means every desired replica is ready.
	RuntimePhaseReady RuntimePhase = "Ready"
)

// CacheStateName names one entry of a cacheStates map.
type CacheStateName string

const (
	// Cached is the amount of data in the cache, e.g. "1.2GiB".
	Cached CacheStateName = "cached"
	// CacheCapacity is the total cache size, e.g. "4GiB".
	CacheCapacity CacheStateName = "cacheCapacity"
	// CachedPercentage is cached divided by the dataset's size, e.g. "30.0%".
	CachedPercentage CacheStateName = "cachedPercentage"
	// CacheHitRatio is the share of reads served from cache, e.g. "85.0%".
	CacheHitRatio CacheStateName = "cacheHitRatio"
	// LocalHitRatio is the share of reads served from the reader's node.
	LocalHitRatio CacheStateName = "localHitRatio"
	// RemoteHitRatio is the share of reads served from another node's cache.
	RemoteHitRatio CacheStateName = "remoteHitRatio"
	// LocalThroughputRatio is the share of bytes read from the reader's node.
	LocalThroughputRatio CacheStateName = "localThroughputRatio"
	// RemoteThroughputRatio is the share of bytes read from another node.
	RemoteThroughputRatio CacheStateName = "remoteThroughputRatio"
	// CacheThroughputRatio is the share of bytes read from any cache.
	CacheThroughputRatio CacheStateName = "cacheThroughputRatio"
)

// CacheStateList maps cache-state names to human-readable values.
type CacheStateList map[CacheStateName]string

// APIGatewayStatus is where an engine's REST gateway listens.
type APIGatewayStatus struct {
	// Endpoint is the gateway's host:port.
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
}

// RuntimeStatus is the observed state shared by every runtime kind.
type RuntimeStatus struct {
	// ValueFile names the ConfigMap holding the engine release's values.
	// +optional
	ValueFile string `json:"valueFile,omitempty"`

	// MasterPhase summarises the masters.
	// +optional
	MasterPhase RuntimePhase `json:"masterPhase,omitempty"`
	// MasterReason explains MasterPhase.
	// +optional
	MasterReason string `json:"masterReason,omitempty"`
	// WorkerPhase summarises the workers.
	// +optional
	WorkerPhase RuntimePhase `json:"workerPhase,omitempty"`
	// WorkerReason explains WorkerPhase.
	// +optional
	WorkerReason string `json:"workerReason,omitempty"`
	// FusePhase summarises the FUSE pods.
	// +optional
	FusePhase RuntimePhase `json:"fusePhase,omitempty"`
	// FuseReason explains FusePhase.
	// +optional
	FuseReason string `json:"fuseReason,omitempty"`

	// DesiredMasterNumberScheduled is the number of masters wanted.
	// +optional
	DesiredMasterNumberScheduled int32 `json:"desiredMasterNumberScheduled,omitempty"`
	// CurrentMasterNumberScheduled is the number of masters scheduled.
	// +optional
	CurrentMasterNumberScheduled int32 `json:"currentMasterNumberScheduled,omitempty"`
	// MasterNumberReady is the number of ready masters.
	// +optional
	MasterNumberReady int32 `json:"masterNumberReady,omitempty"`

	// DesiredWorkerNumberScheduled is the number of workers wanted.
	// +optional
	DesiredWorkerNumberScheduled int32 `json:"desiredWorkerNumberScheduled,omitempty"`
	// CurrentWorkerNumberScheduled is the number of workers scheduled; it is
	// the scale subresource's status replicas.
	// +optional
	CurrentWorkerNumberScheduled int32 `json:"currentWorkerNumberScheduled,omitempty"`
	// WorkerNumberReady is the number of ready workers.
	// +optional
	WorkerNumberReady int32 `json:"workerNumberReady,omitempty"`
	// WorkerNumberAvailable is the number of available workers.
	// +optional
	WorkerNumberAvailable int32 `json:"workerNumberAvailable,omitempty"`
	// WorkerNumberUnavailable is the number of unavailable workers.
	// +optional
	WorkerNumberUnavailable int32 `json:"workerNumberUnavailable,omitempty"`

	// DesiredFuseNumberScheduled is the number of nodes that should run FUSE.
	// +optional
	DesiredFuseNumberScheduled int32 `json:"desiredFuseNumberScheduled,omitempty"`
	// CurrentFuseNumberScheduled is the number of nodes running a FUSE pod.
	// +optional
	CurrentFuseNumberScheduled int32 `json:"currentFuseNumberScheduled,omitempty"`
	// FuseNumberReady is the number of ready FUSE pods.
	// +optional
	FuseNumberReady int32 `json:"fuseNumberReady,omitempty"`
	// FuseNumberAvailable is the number of available FUSE pods.
	// +optional
	FuseNumberAvailable int32 `json:"fuseNumberAvailable,omitempty"`
	// FuseNumberUnavailable is the number of unavailable FUSE pods.
	// +optional
	FuseNumberUnavailable int32 `json:"fuseNumberUnavailable,omitempty"`

	// SetupDuration is how long the runtime took to become ready.
	// +optional
	SetupDuration string `json:"setupDuration,omitempty"`

	// Conditions are the runtime's conditions; Ready summarises them.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// CacheStates are the engine's cache figures.
	// +optional
	CacheStates CacheStateList `json:"cacheStates,omitempty"`

	// Selector is the label selector of the worker pods, for the scale
	// subresource (HorizontalPodAutoscaler).
	// +optional
	Selector string `json:"selector,omitempty"`

	// APIGateway is the engine's REST gateway, when it has one.
	// +optional
	APIGateway APIGatewayStatus `json:"apiGateway,omitempty"`

	// CacheAffinity is the topology of the nodes holding the cache; the
	// mutating webhook reads it for tiered locality.
	// +optional
	CacheAffinity *corev1.NodeAffinity `json:"cacheAffinity,omitempty"`

	// MountTime is when the under-filesystems were last mounted.
	// +optional
	MountTime *metav1.Time `json:"mountTime,omitempty"`

	// Mounts are the mounts the engine has applied.
	// +kubebuilder:validation:MaxItems=128
	// +optional
	Mounts []Mount `json:"mounts,omitempty"`

	// ObservedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// HostPorts are the ports the runtime's components on the host network
	// listen on, by component and port name ("master.rpc"): set in the
	// spec, or allocated by the controller from its host port range
	// (--runtime-node-port-range), which never hands a port recorded here
	// to another runtime. Not in Fluid, which records them in the values
	// ConfigMap.
	// +optional
	HostPorts map[string]int32 `json:"hostPorts,omitempty"`
}
