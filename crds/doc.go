// Package crds is `sluice crds`: the CustomResourceDefinitions this
// binary was built with (config/crd/bases, embedded), printed or applied
// to a cluster. Helm installs a chart's crds/ once and never upgrades
// them, so upgrading Sluice starts with `sluice crds apply` run from the
// new version (docs/install.md, "Upgrade"): a server-side apply under one
// field manager that stamps each CRD with the version that applied it and
// refuses to replace CRDs a newer Sluice applied.
package crds
