package monitoring

import (
	"path/filepath"
	"runtime"
)

// RepoRoot is the root of the Sluice repository (found from this file, as
// tests/support/testenv does, without linking a control plane: the package's
// own tests are unit tests).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}
