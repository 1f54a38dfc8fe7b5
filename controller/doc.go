// Package controller runs Sluice's controller manager (`sluice controller`):
// leader election, metrics and health probes, and the reconcilers of the
// sub-packages. Composition happens here; reconcilers get their dependencies
// as struct fields.
package controller
