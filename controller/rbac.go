package controller

// The controller's permissions, generated into config/rbac/role.yaml by
// `make generate` (controller-gen). They cover what the reconcilers read and
// write, and what the engines' Helm releases create, upgrade and delete in
// runtimes' namespaces (and Helm's release records, kept in Secrets).

// Sluice's API: Datasets, runtimes and data operations.
// +kubebuilder:rbac:groups=data.fluid.io,resources=datasets;alluxioruntimes;juicefsruntimes;jindoruntimes;thinruntimes;dataloads;datamigrates;databackups;dataprocesses,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=data.fluid.io,resources=datasets/status;alluxioruntimes/status;juicefsruntimes/status;jindoruntimes/status;thinruntimes/status;dataloads/status;datamigrates/status;databackups/status;dataprocesses/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=data.fluid.io,resources=datasets/finalizers;alluxioruntimes/finalizers;juicefsruntimes/finalizers;jindoruntimes/finalizers;thinruntimes/finalizers,verbs=update
// +kubebuilder:rbac:groups=data.fluid.io,resources=thinruntimeprofiles,verbs=get;list;watch

// Volumes, node cache labels, and the Pods that hold a runtime's deletion.
// +kubebuilder:rbac:groups="",resources=persistentvolumes;persistentvolumeclaims,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch

// The engines' releases and Helm's release records.
// +kubebuilder:rbac:groups=apps,resources=statefulsets;daemonsets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=configmaps;services;secrets,verbs=get;list;watch;create;update;patch;delete

// Events, and the leader-election lease.
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch
