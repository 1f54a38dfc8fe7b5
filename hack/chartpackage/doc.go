// Command chartpackage packages the platform chart (charts/sluice) as
// `helm package --app-version` would, with the Helm SDK: the packaged
// chart's appVersion, and so its default image tag (image.tag), is the
// version being built, the tag `make image` gives the image. `make chart`
// runs it.
package main
