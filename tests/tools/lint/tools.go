//go:build tools

// Package lint records the linters built from this module.
package lint

import _ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
