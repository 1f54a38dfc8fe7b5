package engines

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// DefaultImage is one of an engine's built-in default images, by name
// (the name the controller's --engine-image flag and the chart's
// engines.images values use).
type DefaultImage struct {
	Name, Repository, Tag string
}

// Images sets the engines' default images (what a runtime that names no
// image runs): Registry, for clusters pulling from a mirror, replaces the
// registry of every built-in default; Overrides replace a default by name
// with a reference of their own, used as given. A runtime's own image
// fields win over both (and are judged by the image guards, as before).
type Images struct {
	// Registry replaces the registry (a first path element with a dot or
	// a colon, or localhost) of each built-in default image, or prefixes
	// one without (Docker Hub's): "mirror.example.com" makes
	// juicedata/juicefs-fuse mirror.example.com/juicedata/juicefs-fuse.
	Registry string
	// Overrides are references (repository, repository:tag or
	// repository@digest) by default image name; without a tag, the
	// built-in default's tag is kept.
	Overrides map[string]string
}

// Resolve is the repository and tag of the default image d: its
// override, else its built-in default under Registry. A repository that
// carries a digest comes with no tag.
func (i Images) Resolve(d DefaultImage) (repository, tag string) {
	if ref, ok := i.Overrides[d.Name]; ok {
		if strings.Contains(ref, "@") {
			return ref, ""
		}
		if repo, tag, ok := splitTag(ref); ok {
			return repo, tag
		}
		return ref, d.Tag
	}
	return MirrorRepository(i.Registry, d.Repository), d.Tag
}

// Check refuses overrides of names not in known and references that are
// not image references, naming the flag value at fault.
func (i Images) Check(known []DefaultImage) error {
	if i.Registry != "" && !registryPattern.MatchString(i.Registry) {
		return fmt.Errorf("image registry %q is not a registry host[:port][/path]", i.Registry)
	}
	var names []string
	for _, d := range known {
		names = append(names, d.Name)
	}
	for _, name := range slices.Sorted(maps.Keys(i.Overrides)) {
		if !slices.Contains(names, name) {
			return fmt.Errorf("engine image %q is not one of the engines' default images (%s)", name, strings.Join(names, ", "))
		}
		if ref := i.Overrides[name]; !referencePattern.MatchString(ref) {
			return fmt.Errorf("engine image %s=%q is not an image reference (repository, repository:tag or repository@sha256:digest)", name, ref)
		}
	}
	return nil
}

var (
	registryPattern  = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*$`)
	referencePattern = regexp.MustCompile(`^[a-z0-9]+([._:/-][a-z0-9]+)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$`)
)

// splitTag splits repository:tag (the colon after the last slash: a
// registry's port is not a tag).
func splitTag(ref string) (repository, tag string, ok bool) {
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return ref, "", false
	}
	return ref[:i], ref[i+1:], true
}

// MirrorRepository is repository under registry: its own registry (a
// first path element with a dot or a colon, or localhost) replaced, or
// registry prefixed when it names none. Unchanged when registry is "".
// The chart's sluice.mirrored template does the same for the chart's
// images.
func MirrorRepository(registry, repository string) string {
	if registry == "" {
		return repository
	}
	registry = strings.TrimSuffix(registry, "/")
	first, rest, found := strings.Cut(repository, "/")
	if found && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return registry + "/" + rest
	}
	return registry + "/" + repository
}
