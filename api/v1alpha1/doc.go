// Package v1alpha1 holds Sluice's API types in the data.fluid.io/v1alpha1 group,
// wire-compatible with CNCF Fluid, plus the well-known label and annotation keys.
//
// The package depends on apimachinery and core/v1 only, so that it stays cheap
// to import; webhooks, defaulting helpers and controllers live elsewhere.
//
// +kubebuilder:object:generate=true
// +groupName=data.fluid.io
package v1alpha1
