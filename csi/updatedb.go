package csi

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// updatedb.conf keys listing what updatedb(8) does not index.
const (
	pruneFSKey    = "PRUNEFS"
	prunePathsKey = "PRUNEPATHS"
)

// DefaultPruneFS are the FUSE types of the Alluxio, Jindo and JuiceFS
// engines' mounts, which updatedb should not crawl: a crawl reads every
// file of a dataset through FUSE. A ThinRuntime's type is its profile's;
// the FUSE root in PRUNEPATHS covers every engine's mounts.
var DefaultPruneFS = []string{"fuse.alluxio-fuse", "fuse.jindofs-fuse", "fuse.juicefs"}

// assignment is a line setting a variable: NAME = ...
var assignment = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=`)

// pruneLine is a PRUNEFS or PRUNEPATHS line: KEY = "space separated".
var pruneLine = regexp.MustCompile(`^\s*(PRUNEFS|PRUNEPATHS)\s*=\s*"([^"]*)"\s*$`)

// PruneUpdatedb adds fsTypes to PRUNEFS and paths to PRUNEPATHS in the
// updatedb.conf at path, so that updatedb skips datasets' FUSE mounts. It
// only adds: a value already listed stays, nothing else in the file
// changes, and a file that lists them all is not written (so it is
// idempotent). A key without a line gets one at the end. A missing file
// (no updatedb on the node) is left missing; a key line it cannot read
// (not KEY="...") is an error, and the file is not touched. The file is
// replaced by rename, so that updatedb never reads half of it.
func PruneUpdatedb(path string, fsTypes, paths []string) (changed bool, err error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	out, changed, err := pruneConfig(string(data), map[string][]string{pruneFSKey: fsTypes, prunePathsKey: paths})
	if err != nil || !changed {
		return false, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".sluice")
	if err := os.WriteFile(tmp, []byte(out), fi.Mode().Perm()); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return false, err
	}
	return true, nil
}

// pruneConfig is PruneUpdatedb on the file's text: add, per key, the
// values it lacks.
func pruneConfig(text string, add map[string][]string) (string, bool, error) {
	lines := strings.Split(text, "\n")
	seen := map[string]bool{}
	changed := false
	for i, line := range lines {
		k := assignment.FindStringSubmatch(line)
		if k == nil || add[k[1]] == nil {
			continue
		}
		key := k[1]
		m := pruneLine.FindStringSubmatch(line)
		if m == nil || m[1] != key {
			return "", false, fmt.Errorf("line %d of updatedb.conf, %q, is not %s=\"...\"; it is left as it is", i+1, line, key)
		}
		seen[key] = true
		values := strings.Fields(m[2])
		missing := lacking(values, add[key])
		if len(missing) == 0 {
			continue
		}
		lines[i] = fmt.Sprintf(`%s = "%s"`, key, strings.Join(append(values, missing...), " "))
		changed = true
	}
	for _, key := range []string{pruneFSKey, prunePathsKey} {
		missing := lacking(nil, add[key])
		if seen[key] || len(missing) == 0 {
			continue
		}
		line := fmt.Sprintf(`%s = "%s"`, key, strings.Join(missing, " "))
		if n := len(lines); lines[n-1] == "" {
			lines = append(lines[:n-1], line, "") // the file's final newline stays last
		} else {
			lines = append(lines, line)
		}
		changed = true
	}
	return strings.Join(lines, "\n"), changed, nil
}

// lacking returns the values of want, once each and in order, that have
// is without; empty values are skipped.
func lacking(have, want []string) []string {
	var out []string
	for _, v := range want {
		if v != "" && !slices.Contains(have, v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
