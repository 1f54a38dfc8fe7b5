// Command chartsync keeps the platform chart (charts/sluice) in step with
// what controller-gen generates: `make generate` runs it after controller-gen.
//
// It writes
//   - charts/sluice/crds/<name>.json: each CRD of config/crd/bases as one
//     line of compact JSON after a "---" line (so that `helm show crds`,
//     which concatenates the files, prints one document per CRD). Helm installs crds/ files before the templates
//     and stores the chart in the release record (a Secret, at most 1 MiB);
//     compact JSON keeps the CRDs well inside that limit, where the same
//     CRDs as YAML would take most of it. The CRDs of the kinds Sluice
//     serves but refuses (api/v1alpha1 RefusedKinds) leave their schema
//     descriptions out, for the same reason;
//   - charts/sluice/files/controller-role.yaml and
//     controller-namespace-role.yaml: the two documents of
//     config/rbac/role.yaml, which controller-gen generates from the
//     +kubebuilder:rbac markers: the controller's ClusterRole, and its Role
//     in its own namespace (markers with namespace=sluice-system, such as the
//     leader-election lease's). The chart renders their rules unchanged, the
//     Role's in the release namespace;
//   - charts/sluice/files/image-prefixes.yaml: each install profile's
//     default image prefixes (validating.guards."*".imagePrefixes of the
//     policy data the webhook embeds), which the chart mirrors under
//     imageRegistry, so that the guards admit the mirrored images.
//
// Files it did not write are removed from crds/, so a deleted CRD leaves the
// chart too. `make verify` fails when its output differs from the committed
// chart.
package main
