package dataset

// The Dataset controller's permissions beyond the controller's common ones
// (controller/rbac.go: Datasets, their status and finalizers, Pods,
// events): it deletes the runtimes bound to a deleted Dataset, and creates
// the ThinRuntime of a reference dataset.
// +kubebuilder:rbac:groups=data.fluid.io,resources=alluxioruntimes;juicefsruntimes;jindoruntimes;thinruntimes,verbs=delete
// +kubebuilder:rbac:groups=data.fluid.io,resources=thinruntimes,verbs=create
