package controller

// The controller's permissions, generated into config/rbac/role.yaml by
// `make generate` (controller-gen): a ClusterRole for what the reconcilers
// read and write, and what the engines' Helm releases create, upgrade and
// delete in runtimes' namespaces (and Helm's release records, kept in
// Secrets); and a Role in the controller's own namespace (sluice-system here,
// the release namespace in the chart) for its leader-election lease.

// Sluice's API: Datasets, runtimes and data operations.
// +kubebuilder:rbac:groups=data.fluid.io,resources=datasets;alluxioruntimes;juicefsruntimes;jindoruntimes;thinruntimes;dataloads;datamigrates;databackups;dataprocesses,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=data.fluid.io,resources=datasets/status;alluxioruntimes/status;juicefsruntimes/status;jindoruntimes/status;thinruntimes/status;dataloads/status;datamigrates/status;databackups/status;dataprocesses/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=data.fluid.io,resources=datasets/finalizers;alluxioruntimes/finalizers;juicefsruntimes/finalizers;jindoruntimes/finalizers;thinruntimes/finalizers,verbs=update
// +kubebuilder:rbac:groups=data.fluid.io,resources=thinruntimeprofiles,verbs=get;list;watch

// Volumes, node cache labels, and the Pods that hold a runtime's deletion.
// +kubebuilder:rbac:groups="",resources=persistentvolumes;persistentvolumeclaims,verbs=get;list;watch;create;delete
// A PV created before it had one gets its nodeAffinity (the FUSE node selector) by a patch.
// +kubebuilder:rbac:groups="",resources=persistentvolumes,verbs=patch
// The PVC a ThinRuntime Dataset wraps gets (and loses) the wrap label by a patch
// (controller/cacheruntime/wrap.go).
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch

// The engines' releases, and the Jobs of a deleted runtime's cache cleanup
// (charts/cachecleanup).
// +kubebuilder:rbac:groups=apps,resources=statefulsets;daemonsets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=configmaps;services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;update;patch;delete

// The Datasets' metadata Jobs (controller/cacheruntime,
// engines/workloads/ufsmeta), which count a Dataset's files; their pods'
// termination messages are read from the Pods above.
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete

// Helm's release records: its secret storage driver (controller/helm) keeps
// one Secret per revision in the runtime's namespace, which may be any
// namespace, and reads, lists (by label), creates, updates and deletes them;
// it never watches or patches. Engines read no Secret: they name the user's
// credential Secrets in the Pods they render and the kubelet reads them.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;create;update;delete

// Events.
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// The leader-election lease (manager.go's LeaderElectionID), in the
// controller's namespace only: client-go's lease lock creates it, then gets
// and updates it by name.
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=sluice-system,resources=leases,verbs=create
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=sluice-system,resources=leases,resourceNames=sluice-controller.data.fluid.io,verbs=get;update
//
// The FUSE records (PodTemplates) in the controller's namespace: the runtime
// reconcilers write them, the orphan sweep (controller/gc) lists them.
// +kubebuilder:rbac:groups="",namespace=sluice-system,resources=podtemplates,verbs=get;list;create;update;delete

// Secure metrics (--metrics-secure, the chart's default): each scrape's
// token is reviewed and its access to /metrics checked
// (internal/metricsauth).
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
