package csi

import (
	"fmt"
	"path/filepath"
	"strings"
)

// publishSource is what NodePublishVolume bind-mounts for a volume whose
// FUSE mount is at fluidPath: source (fluid_path, or the sub-path below
// it) with symbolic links resolved. The FUSE file system is the user's
// program's: a sub-path that is, or passes through, a symbolic link
// leading out of the FUSE mount (to the node's /, say) is refused, as the
// bind mount would follow it. The error of a missing sub-path satisfies
// errors.Is(err, fs.ErrNotExist).
func publishSource(fluidPath, source string) (string, error) {
	root, err := filepath.EvalSymlinks(fluidPath)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(source)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("the dataset's sub-path %s leads out of its FUSE mount %s (to %s)", source, fluidPath, real)
	}
	return real, nil
}
