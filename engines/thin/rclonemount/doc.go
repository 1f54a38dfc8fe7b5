// Package rclonemount is the FUSE program of the rclone ThinRuntimeProfile
// (config/samples/thin-rclone): it reads the Thin FUSE config a FUSE pod
// is given (/etc/fluid/config/config.json) and runs `rclone mount2` for the
// Dataset's one s3:// mount, with the Dataset's options as rclone flags and
// its credentials, read from the mounted Secret files, in rclone's
// environment. It is `sluice rclone-mount`.
package rclonemount
