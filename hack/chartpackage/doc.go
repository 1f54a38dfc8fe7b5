// Command chartpackage packages the platform chart (charts/sluice) as
// `helm package --app-version` would: a gzipped tar of the chart's files
// under <name>/, with Chart.yaml's appVersion, and so the chart's default
// image tag (image.tag), set to the version being built, the tag `make image`
// gives the image. `make chart` runs it. It does not import the Helm SDK
// (controller/helm is the only package that may); tests/chart loads its
// output with Helm's loader.
package main
