package policy

import (
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/policies"
)

// Bundle is a set of Rego modules and the policy data they read as
// data.sluice.config.
type Bundle struct {
	// Modules maps a module's ID (its file name, e.g. mutating/affinity.rego)
	// to its source. A later module with the same ID replaces an earlier one.
	Modules map[string]string
	// Tests are *_test.rego modules, used only by the test runner.
	Tests map[string]string
	// Data is the policy data, served as data.sluice.config.
	Data map[string]any
	// Sources says where each module and data file came from, for messages.
	Sources map[string]string
}

// NewBundle returns an empty bundle.
func NewBundle() *Bundle {
	return &Bundle{Modules: map[string]string{}, Tests: map[string]string{}, Data: map[string]any{}, Sources: map[string]string{}}
}

// DefaultBundle returns the policies embedded in the binary.
func DefaultBundle() (*Bundle, error) {
	b := NewBundle()
	if err := b.AddFS(policies.FS, "embedded"); err != nil {
		return nil, err
	}
	return b, nil
}

// ProfileBundle returns the policies embedded in the binary with the
// install profile's data merged over the default data
// (policies.Profile; "" is restricted).
func ProfileBundle(profile string) (*Bundle, error) {
	b, err := DefaultBundle()
	if err != nil {
		return nil, err
	}
	over, err := policies.Profile(profile)
	if err != nil {
		return nil, err
	}
	b.Data = MergeData(b.Data, over)
	return b, nil
}

// AddFS adds every .rego, .yaml, .yml and .json file of fsys (testdata
// and the embedded install profiles excluded: ProfileBundle merges the one
// chosen), naming modules by their slash-separated path.
func (b *Bundle) AddFS(fsys fs.FS, source string) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || (fsys == policies.FS && p == policies.ProfileDir) {
				return fs.SkipDir
			}
			return nil
		}
		content, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return b.AddFile(p, string(content), source)
	})
}

// AddFile adds one file: a Rego module or test (.rego), or policy data
// (.yaml, .yml, .json) deep-merged over the data already in the bundle.
// Other files are ignored.
func (b *Bundle) AddFile(name, content, source string) error {
	switch {
	case strings.HasSuffix(name, "_test.rego"):
		b.Tests[name] = content
	case path.Ext(name) == ".rego":
		b.Modules[name] = content
	case policies.IsDataFile(name):
		data, err := policies.ParseData(name, content, source)
		if err != nil {
			return err
		}
		b.Data = MergeData(b.Data, data)
	default:
		return nil
	}
	b.Sources[name] = source
	return nil
}

// Merge returns a new bundle: b's content overridden by o's (modules and
// tests replaced by ID, data deep-merged).
func (b *Bundle) Merge(o *Bundle) *Bundle {
	out := NewBundle()
	for _, src := range []*Bundle{b, o} {
		maps.Copy(out.Modules, src.Modules)
		maps.Copy(out.Tests, src.Tests)
		maps.Copy(out.Sources, src.Sources)
		out.Data = MergeData(out.Data, src.Data)
	}
	return out
}

// ModuleIDs returns the IDs of the bundle's modules, sorted.
func (b *Bundle) ModuleIDs() []string { return slices.Sorted(maps.Keys(b.Modules)) }

// MergeData deep-merges over onto base (policies.MergeData).
func MergeData(base, over map[string]any) map[string]any { return policies.MergeData(base, over) }
