package warmup

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// CheckPath checks one Dataset path as a DataLoad's spec.target[].path
// names it: absolute ("/" is the whole Dataset), without ".." elements and
// without a NUL byte (which no command line can carry).
func CheckPath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return errors.New("a path in the Dataset starts with /")
	case strings.ContainsRune(p, 0):
		return errors.New("a path cannot hold a NUL byte")
	case slices.Contains(strings.Split(p, "/"), ".."):
		return errors.New("a path in the Dataset has no .. elements")
	}
	return nil
}

// Targets checks and cleans the Dataset paths and leaves out each path at
// or below another one, so that no file is read twice; the rest keep their
// order.
func Targets(paths []string) ([]string, error) {
	clean := make([]string, 0, len(paths))
	for _, p := range paths {
		if err := CheckPath(p); err != nil {
			return nil, &PathError{Path: p, Err: err}
		}
		clean = append(clean, path.Clean(p))
	}
	var out []string
	for i, p := range clean {
		if !slices.ContainsFunc(clean, func(q string) bool { return covers(q, p) }) &&
			!slices.Contains(clean[:i], p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// covers reports whether q is a directory strictly above p.
func covers(q, p string) bool {
	return q != p && (q == "/" || strings.HasPrefix(p, q+"/"))
}

// rel is a clean Dataset path as a name in the Dataset's fs.FS.
func rel(p string) string {
	if p == "/" {
		return "."
	}
	return strings.TrimPrefix(p, "/")
}

// PathError is a Dataset path the program refuses.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return fmt.Sprintf("path %q: %v", e.Path, e.Err) }

func (e *PathError) Unwrap() error { return e.Err }
