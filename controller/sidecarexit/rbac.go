package sidecarexit

// Beyond the controller's common read access to Pods (controller/rbac.go),
// the reconciler patches the apps-done annotation onto them.
// +kubebuilder:rbac:groups="",resources=pods,verbs=patch
