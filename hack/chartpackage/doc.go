// Command chartpackage packages the platform chart (charts/sluice) as
// `helm package --app-version` does, with the same Helm SDK calls: Chart.yaml's
// appVersion, and so the chart's default image tag (image.tag), set to the
// version being built, the tag `make image` gives the image (and the
// artifacthub.io/images annotation's tag of that image with it). `make chart` runs
// it, so packaging needs no helm CLI. It is a build tool, not part of the
// binary: in the sluice binary only controller/helm imports the Helm SDK.
// tests/chart loads its output with Helm's loader.
package main
