package config

import corev1 "k8s.io/api/core/v1"

// Mutating configures the mutating webhook's decisions on Pods.
type Mutating struct {
	// Data affinity: node affinity toward the nodes that cache the Pod's
	// datasets.
	Affinity Affinity `json:"affinity"`
	// Serverful Pods (label fuse.serverful.fluid.io/inject=true) that use no
	// dataset prefer nodes without any cache (fluid.io/dataset-num
	// DoesNotExist, weight 100), as in Fluid's default webhook plugin
	// profile.
	PreferNodesWithoutCache PreferNodesWithoutCache `json:"preferNodesWithoutCache"`
	// HostToContainer propagation on dataset volume mounts (CSI FUSE
	// recovery).
	MountPropagation Switch `json:"mountPropagation"`
	// The fluid.io/datasets-in-use annotation on Pods that use datasets.
	DatasetsInUse Switch `json:"datasetsInUse"`
	// The FUSE sidecars injected into serverless Pods.
	Sidecar Sidecar `json:"sidecar"`
	// Serverless platforms a Pod may name in annotation
	// serverless.fluid.io/platform, besides the built-in default and
	// unprivileged: name -> platform, e.g. {edge: {unprivileged: true,
	// args: {cache-size: {env: FUSE_CACHE_SIZE}}}}.
	Platforms map[string]Platform `json:"platforms"`
	// Pods labelled app.poststart.fluid.io/inject=true: a postStart hook on
	// each app container waits for its dataset mounts.
	AppPostStart AppPostStart `json:"appPostStart"`
	// Datasets a Pod may use from other namespaces.
	CrossNamespace CrossNamespace `json:"crossNamespace"`
}

// Affinity configures data affinity.
type Affinity struct {
	// Every Pod that uses a dataset PVC gets data affinity; false: only
	// Pods labelled fuse.serverful.fluid.io/inject=true.
	AllDatasetPods bool `json:"allDatasetPods"`
	// Tiered locality: preferred node-affinity terms, strongest first. The
	// list replaces the default list whole.
	Preferred []PreferredLocality `json:"preferred"`
	// Localities required for Pods labelled
	// fluid.io/dataset.<name>.sched=required (AND-ed): fluid.io/node,
	// fluid.io/fuse, or a node label key of the runtime's
	// status.cacheAffinity.
	Required []string `json:"required" jsonschema:"minLength=1"`
	// Require nodes matching the runtime's FUSE nodeSelector.
	RequireFuseNodes bool `json:"requireFuseNodes"`
}

// PreferredLocality is one tier of data affinity.
type PreferredLocality struct {
	// fluid.io/node stands for "the node caches the dataset", fluid.io/fuse
	// for "the node runs the dataset's FUSE"; other names are node label
	// keys taken from the runtime's status.cacheAffinity (zone, region).
	Name string `json:"name" jsonschema:"required,minLength=1"`
	// The preferred term's weight.
	Weight int32 `json:"weight" jsonschema:"required,minimum=1,maximum=100"`
}

// PreferNodesWithoutCache configures the preference of Pods without
// datasets for nodes without caches.
type PreferNodesWithoutCache struct {
	// Add the preference.
	Enabled bool `json:"enabled"`
	// Every Pod that uses no dataset prefers such nodes, not only
	// serverful ones (widen the webhook's matchConditions to send such
	// Pods).
	AllPods bool `json:"allPods"`
}

// Switch turns a mutation on or off.
type Switch struct {
	// Make the mutation.
	Enabled bool `json:"enabled"`
}

// Sidecar configures the injected FUSE sidecars.
type Sidecar struct {
	// native: an init container with restartPolicy Always (Kubernetes >=
	// 1.29); container: a regular container; auto: native where the cluster
	// supports it.
	Mode string `json:"mode" jsonschema:"enum=auto,enum=native,enum=container"`
	// Environment variables set on every injected FUSE container, replacing
	// the FUSE template's of the same name: name -> value (a string; quote
	// numbers), e.g. {HTTPS_PROXY: "http://proxy:3128"}.
	Env map[string]string `json:"env"`
	// Resources set on every injected FUSE container, each replacing the
	// template's for its resource, e.g. {limits: {memory: 2Gi}}.
	Resources SidecarResources `json:"resources"`
	// Name prefixes of the FUSE template volumes that are cache directories
	// (Fluid's, and ThinRuntime's thin-cache-). A sidecar is injected
	// without them unless its Pod is labelled
	// cachedir.sidecar.fluid.io/inject=true.
	CacheDirVolumes []string `json:"cacheDirVolumes" jsonschema:"minLength=1"`
}

// SidecarResources are resource quantities by resource name.
type SidecarResources struct {
	// Limits: resource name -> quantity (a string such as "2Gi", or a number).
	Limits corev1.ResourceList `json:"limits"`
	// Requests: resource name -> quantity (a string such as "500m", or a number).
	Requests corev1.ResourceList `json:"requests"`
}

// Platform is a serverless platform of the platform team's.
type Platform struct {
	// The sidecar drops its privileges.
	Unprivileged bool `json:"unprivileged"`
	// Set on every sidecar of the platform's Pods: name -> value.
	Env map[string]string `json:"env"`
	// The platform's extra arguments, by key: annotation
	// <platform>.fluid.io/<key> on a Pod sets the variable env on its
	// sidecars to the annotation's value.
	Args map[string]PlatformArg `json:"args"`
}

// PlatformArg is where a platform argument goes.
type PlatformArg struct {
	// The environment variable the argument sets.
	Env string `json:"env" jsonschema:"required,minLength=1"`
}

// AppPostStart configures the app containers' postStart hooks.
type AppPostStart struct {
	// How long each app container's postStart hook waits for its dataset
	// mounts before it fails the container.
	TimeoutSeconds int `json:"timeoutSeconds" jsonschema:"minimum=1"`
}

// CrossNamespace lists the datasets Pods may use from other namespaces.
type CrossNamespace struct {
	// Each entry allows Pods in podNamespace to use dataset
	// datasetNamespace/dataset. A serverless Pod's sidecar for such a
	// dataset runs the other namespace's FUSE image: denied unless the
	// image is on the Pod's namespace's validating.guards imagePrefixes.
	Allow []CrossNamespaceRule `json:"allow"`
}

// CrossNamespaceRule allows Pods of some namespaces a dataset of another.
type CrossNamespaceRule struct {
	// The Pods' namespace, or "*" for any.
	PodNamespace string `json:"podNamespace" jsonschema:"required,minLength=1"`
	// The dataset's namespace, or "*" for any.
	DatasetNamespace string `json:"datasetNamespace" jsonschema:"required,minLength=1"`
	// The dataset's name, or "*" for any.
	Dataset string `json:"dataset" jsonschema:"required,minLength=1"`
}
