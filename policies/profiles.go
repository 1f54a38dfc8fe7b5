package policies

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

const (
	// ProfileRestricted is the default install profile: the default
	// policy data as it is, for shared clusters.
	ProfileRestricted = "restricted"
	// ProfileFluidCompatible admits what Fluid's documented setups use
	// (node directories, Fluid's images) on single-tenant clusters, and
	// keeps the rules that protect the platform.
	ProfileFluidCompatible = "fluid-compatible"

	// ProfileDir holds one overlay per profile, <name>.yaml.
	ProfileDir = "profiles"
)

// Profiles are the names of the install profiles, sorted.
func Profiles() []string {
	files, err := fs.Glob(FS, ProfileDir+"/*.yaml")
	if err != nil {
		panic(err) // the pattern is constant and valid
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, strings.TrimSuffix(path.Base(f), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Profile is the policy data the install profile name merges over the
// default data (data.yaml), under the policy ConfigMaps; "" is
// ProfileRestricted. An unknown name is an error naming the known ones.
func Profile(name string) (map[string]any, error) {
	if name == "" {
		name = ProfileRestricted
	}
	if !slices.Contains(Profiles(), name) {
		return nil, fmt.Errorf("unknown policy profile %q (known: %s)", name, strings.Join(Profiles(), ", "))
	}
	return readData(ProfileDir + "/" + name + ".yaml")
}
