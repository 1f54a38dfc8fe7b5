package config

import "embed"

// FS holds crd/bases/*.yaml, webhook/*.yaml and samples/*.yaml.
//
//go:embed crd/bases/*.yaml webhook/*.yaml samples/*.yaml
var FS embed.FS
