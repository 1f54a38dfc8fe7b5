// Package buildinfo says which build of Sluice runs: the version stamped at
// link time (-X .../internal/buildinfo.version, as `make build` and the image
// do), the VCS revision the Go toolchain recorded, and the Go version, and
// exports them as the metric sluice_build_info{version, revision,
// goversion, component} = 1 on every component's metrics endpoint.
package buildinfo
