//go:build tools

// Package kubectl records the command built from this module.
package kubectl

import (
	_ "k8s.io/kubernetes/cmd/kubectl"
)
