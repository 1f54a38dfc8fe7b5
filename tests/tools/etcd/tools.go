//go:build tools

// Package etcd records the etcd server command built from this module.
package etcd

import _ "go.etcd.io/etcd/server/v3"
