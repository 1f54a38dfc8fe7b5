package sidecar

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// uniqueHost is a sidecar's own host mount directory: the FUSE template's
// host volume above the mount point (Volume, at host path Dir) moves to
// Dir/Suffix, and with it the FUSE mount on the node, so the dataset's
// hostPath gets the same component after Dir.
type uniqueHost struct {
	Volume string
	Dir    string
	Suffix string
}

// suffixPattern matches a component uniqueHosts made: an optional name
// prefix and 16 hex digits.
var suffixPattern = regexp.MustCompile(`^([a-z0-9-]*-)?[0-9a-f]{16}$`)

// uniqueHosts works out, before anything changes, the host directory of
// each sidecar whose decision asks for one of its own, by the Pod volume it
// serves. A Pod that already has it (this mutator's own output) keeps its
// suffix, which is how a second pass changes nothing.
func uniqueHosts(pod *corev1.Pod, d *decision.Mutating, vols []snapshot.DatasetVolume) (map[string]uniqueHost, error) {
	var out map[string]uniqueHost
	for _, sc := range d.Sidecars {
		if !sc.UniqueHostPath {
			continue
		}
		tmpl := templateFor(vols, sc.Volume)
		if tmpl == nil {
			continue // Mutate reports it
		}
		u, err := hostMountOf(tmpl, sc.MountPath)
		if err != nil {
			return nil, fmt.Errorf("%s=%s, volume %q (dataset %s): %w", datav1alpha1.AnnotationHostMountPathMode,
				datav1alpha1.HostMountPathModeRandomSuffix, sc.Volume, sc.Dataset, err)
		}
		u.Suffix = existingSuffix(pod, sc.Volume, u.Dir)
		if u.Suffix == "" {
			if u.Suffix, err = newSuffix(pod); err != nil {
				return nil, err
			}
		}
		if out == nil {
			out = map[string]uniqueHost{}
		}
		out[sc.Volume] = u
	}
	return out, nil
}

// hostMountOf finds the template's hostPath volume that the FUSE container
// mounts at or above its mount point, the deepest if several are.
func hostMountOf(tmpl *snapshot.FuseTemplate, mountPoint string) (uniqueHost, error) {
	var best uniqueHost
	depth := -1
	for _, m := range tmpl.Container.VolumeMounts {
		v := findIn(tmpl.Volumes, m.Name)
		if v == nil || v.HostPath == nil || m.SubPath != "" || !within(mountPoint, m.MountPath) {
			continue
		}
		if n := len(path.Clean(m.MountPath)); n > depth {
			depth = n
			best = uniqueHost{Volume: v.Name, Dir: path.Clean(v.HostPath.Path)}
		}
	}
	if depth < 0 {
		return uniqueHost{}, fmt.Errorf("the FUSE template mounts no host directory at or above its mount point %s, so it has no host mount directory to make unique", mountPoint)
	}
	return best, nil
}

// at returns p with the suffix inserted after u.Dir, or false when p is not
// within u.Dir.
func (u uniqueHost) at(p string) (string, bool) {
	p = path.Clean(p)
	if !within(p, u.Dir) {
		return "", false
	}
	return path.Join(u.Dir, u.Suffix, strings.TrimPrefix(p, u.Dir)), true
}

// existingSuffix is the suffix the Pod's volume already has after dir, or
// "" when it has none.
func existingSuffix(pod *corev1.Pod, volume, dir string) string {
	v := findVolume(pod, volume)
	if v == nil || v.HostPath == nil || !within(v.HostPath.Path, dir) {
		return ""
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(path.Clean(v.HostPath.Path), dir), "/")
	first, _, _ := strings.Cut(rest, "/")
	if suffixPattern.MatchString(first) {
		return first
	}
	return ""
}

// newSuffix is the Pod's name (or generateName) as far as it is made of
// lower-case letters, digits and dashes, then 16 random hex digits.
func newSuffix(pod *corev1.Pod) (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("a random host mount directory: %w", err)
	}
	name := pod.Name
	if name == "" {
		name = strings.TrimRight(pod.GenerateName, "-")
	}
	var prefix strings.Builder
	for _, r := range name {
		if prefix.Len() == 40 || (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			break
		}
		prefix.WriteRune(r)
	}
	if prefix.Len() > 0 {
		prefix.WriteByte('-')
	}
	return prefix.String() + hex.EncodeToString(b), nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

func findIn(vols []corev1.Volume, name string) *corev1.Volume {
	for i := range vols {
		if vols[i].Name == name {
			return &vols[i]
		}
	}
	return nil
}
