//go:build tools

// Package codegen records the code generators built from this module.
package codegen

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
