//go:build tools

// Package kwok records the fake-node command built from this module: kwok
// plays kubelet for the simulated cluster's nodes and pods.
package kwok

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
