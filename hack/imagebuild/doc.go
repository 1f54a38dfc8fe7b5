// Command imagebuild builds Sluice's container image without Docker, with
// github.com/google/go-containerregistry, from a static bin/sluice and the
// build machine's CA bundle (Debian's ca-certificates,
// /etc/ssl/certs/ca-certificates.crt); nothing is pulled from a registry.
//
// The image is scratch plus two layers: a base (CA certificates, /etc/passwd
// and /etc/group with root and nonroot (65532), /tmp) and the binary at
// /sluice. Its entrypoint is /sluice (the subcommand is the first argument),
// its user nonroot; the CSI plugin's DaemonSet runs it as root. OCI labels
// give the version, source and revision.
//
// The output is one tar file that is both an OCI image layout (oci-layout,
// index.json, blobs/) and a `docker save` archive (manifest.json), so
// `docker load`, `podman load`, `ctr images import` and `kind load
// image-archive` all read it. After writing it, imagebuild reads it back and
// checks it (Verify). `make image` runs it.
package main
