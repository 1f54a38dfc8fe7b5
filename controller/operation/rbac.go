package operation

// The operation reconcilers' permissions beyond the controller's
// (controller/rbac.go), generated into config/rbac/role.yaml by `make
// generate`: the Jobs and CronJobs of the operations' releases (created and
// deleted by Helm, a Cron run resumed by the reconciler), deleting
// operations past their TTL, their finalizers, reading whether a
// namespace is being deleted, and the workers of parallel operations
// (StatefulSets and headless Services created and deleted by Helm, scaled
// by the reconciler).
// +kubebuilder:rbac:groups=batch,resources=jobs;cronjobs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=data.fluid.io,resources=dataloads;datamigrates;databackups;dataprocesses,verbs=delete
// +kubebuilder:rbac:groups=data.fluid.io,resources=dataloads/finalizers;datamigrates/finalizers;databackups/finalizers;dataprocesses/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
