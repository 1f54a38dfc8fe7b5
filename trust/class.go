package trust

import (
	"regexp"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/registry"
)

// Class is what a namespace user's value in a field may reach.
type Class string

// The classes of the table.
const (
	// TenantSafe: the field reaches only unprivileged containers, status,
	// scheduling of the tenant's own pods, or data (an argv element, a
	// config file, a mount option) that no container resolves or executes.
	TenantSafe Class = "tenant-safe"
	// Guarded: a named rule of the default validating policies judges the
	// field (Row.Rule), and a Rego test proves the rule.
	Guarded Class = "guarded"
	// PlatformOwned: the field is never taken from a tenant's object: the
	// kind is cluster-scoped (the platform's), or the field is the
	// controller's to write.
	PlatformOwned Class = "platform-owned"
	// Refused: the engine serving the kind refuses the field (its field
	// table), at admission and at reconcile, so it reaches nothing; or the
	// kind is one Sluice serves but refuses (datav1alpha1.RefusedKinds),
	// whose CRD admits no object.
	Refused Class = "refused"
)

// RulePrivileged is the guard rule that judges tenant values reaching a
// container with host privileges (privileged, or on the host network):
// policies/validating/guards_privileged.rego.
const RulePrivileged = "privileged-container"

// Row classifies the field at Path and everything under it. A "*"
// segment stands for any one field name (spec.*.env).
type Row struct {
	Path  string
	Class Class
	// Rule names the guard rule of a Guarded row.
	Rule string
	// Note says where the field's value goes, or why it is safe.
	Note string
	// Host, on a row of RulePrivileged, says which container the field
	// reaches and when that container has host privileges.
	Host *Host
}

// Host is the container a privileged-container row's field reaches.
type Host struct {
	// Container names it for messages: "the privileged FUSE container".
	Container string
	// NetworkAt, when set, is the networkMode field that puts the
	// container on the host network; the field is judged only then. Unset:
	// the container is privileged, and the field is always judged.
	NetworkAt string
	// HostByDefault says an unset networkMode means the host network.
	HostByDefault bool
	// Each, when set, judges every element of the field by its value
	// (each string of a list, each variable's name of an environment): an
	// element matching a pattern of the policy data list of that name
	// (validating.guards.<Each>: jvmOptions, fuseArgs, envNames) passes.
	Each string
}

// Section is the rows of the kinds it names.
type Section struct {
	Kinds []string
	Rows  []Row
}

// Classify returns the row that classifies kind's field at path: the most
// specific row of the table whose path covers it, else a Refused row when
// the engine serving kind refuses the field.
func Classify(kind, path string) (Row, bool) {
	var best Row
	bestScore := -1
	for _, s := range Table {
		if !slices.Contains(s.Kinds, kind) {
			continue
		}
		for _, r := range s.Rows {
			if sc := score(r.Path, path); sc > bestScore {
				best, bestScore = r, sc
			}
		}
	}
	if fields, ok := registry.ForKind(kind); ok {
		if f, sc := engineRow(fields, path); f.Support == engines.Refused && sc >= bestScore {
			return Row{Path: f.Path, Class: Refused, Note: f.Note}, true
		}
	}
	return best, bestScore >= 0
}

// engineRow is the most specific row of an engine's field table covering
// path ("[N]" rows, which refine another, are left out).
func engineRow(fields engines.Fields, path string) (engines.Field, int) {
	var best engines.Field
	bestScore := -1
	for _, f := range fields {
		if indexed.MatchString(f.Path) {
			continue
		}
		if sc := score(f.Path, path); sc > bestScore {
			best, bestScore = f, sc
		}
	}
	return best, bestScore
}

// score is how specifically pattern covers path: -1 when it does not,
// else 2 per segment matched literally and 1 per "*".
func score(pattern, path string) int {
	ps, fs := strings.Split(pattern, "."), strings.Split(path, ".")
	if len(ps) > len(fs) {
		return -1
	}
	sc := 0
	for i, p := range ps {
		switch {
		case p == fs[i] || p == strings.TrimSuffix(fs[i], "[]"):
			sc += 2
		case p == "*" || p == "*[]" && strings.HasSuffix(fs[i], "[]"):
			sc++
		default:
			return -1
		}
	}
	return sc
}

// indexed matches a row path with a "[N]" segment.
var indexed = regexp.MustCompile(`\[\d+\]`)
