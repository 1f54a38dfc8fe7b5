// Package scheme builds the runtime.Scheme every Sluice component uses:
// Kubernetes' built-in kinds plus Sluice's data.fluid.io/v1alpha1 kinds. It is
// separate from api/v1alpha1 so that importing the types stays cheap.
package scheme
