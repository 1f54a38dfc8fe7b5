// Command chartsync keeps the platform chart (charts/sluice) in step with
// what controller-gen generates: `make generate` runs it after controller-gen.
//
// It writes
//   - charts/sluice/crds/<name>.json: each CRD of config/crd/bases as one
//     line of compact JSON after a "---" line (so that `helm show crds`,
//     which concatenates the files, prints one document per CRD). Helm installs crds/ files before the templates
//     and stores the chart in the release record (a Secret, at most 1 MiB);
//     compact JSON keeps the CRDs well inside that limit, where the same
//     CRDs as YAML would take most of it;
//   - charts/sluice/files/controller-role.yaml: a copy of
//     config/rbac/role.yaml, the controller's ClusterRole generated from the
//     +kubebuilder:rbac markers, whose rules the chart's controller
//     ClusterRole renders unchanged.
//
// Files it did not write are removed from crds/, so a deleted CRD leaves the
// chart too. `make verify` fails when its output differs from the committed
// chart.
package main
