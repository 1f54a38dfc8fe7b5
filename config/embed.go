package config

import "embed"

// FS holds crd/bases/*.yaml, rbac/*.yaml, webhook/*.yaml, csi/*.yaml and samples/*.yaml.
//
//go:embed crd/bases/*.yaml rbac/*.yaml webhook/*.yaml csi/*.yaml samples/*.yaml samples/operations/*.yaml
var FS embed.FS
