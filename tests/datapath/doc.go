// Package datapath proves a real data path end to end on one machine: an
// S3 bucket (`rclone serve s3` over a local directory) mounted by exactly
// the FUSE command line the Thin chart renders for the rclone sample
// (config/samples/thin-rclone), published by the CSI node plugin into a
// Pod's target path, read back byte for byte, warmed and then read from
// rclone's VFS cache with the S3 server offline. Its benchmark reads cold
// and warm through the same mount. It needs root, /dev/fuse, fusermount3
// and bin/rclone (`make rclone`).
package datapath
