package enforcement

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kjson "sigs.k8s.io/json"
)

// Key is the policy data key of the enforcement section.
const Key = "enforcement"

// Mode is what is done with a rule's finding.
type Mode string

const (
	// Deny refuses the object (a deny rule's default).
	Deny Mode = "deny"
	// Warn admits the object and returns the denial as an admission warning.
	Warn Mode = "warn"
	// DryRun admits the object silently (a mutation rule: unchanged by the
	// rule); the finding is counted and logged.
	DryRun Mode = "dryrun"
	// Apply applies a mutation rule's change (its default).
	Apply Mode = "apply"
)

// The mutation rules: the parts of the mutating decision, each named for
// what it changes in a Pod.
const (
	RuleAffinity         = "affinity"          // node affinity
	RuleSidecar          = "sidecar"           // FUSE sidecars and the dataset volumes they serve
	RuleAppPostStart     = "app-poststart"     // postStart hooks holding app containers for their mounts
	RuleMountPropagation = "mount-propagation" // propagation on dataset volume mounts
	RulePodMetadata      = "pod-metadata"      // labels and annotations
)

// MutationRules are the mutation rules, sorted.
var MutationRules = []string{RuleAffinity, RuleAppPostStart, RuleMountPropagation, RulePodMetadata, RuleSidecar}

// IsMutation reports whether rule is a mutation rule.
func IsMutation(rule string) bool { return slices.Contains(MutationRules, rule) }

// Policy is the enforcement section: modes per rule and exceptions. The
// zero Policy denies with every deny rule and applies every mutation rule.
type Policy struct {
	// Rules are the modes of rules, by rule name.
	Rules map[string]Rule `json:"rules,omitempty"`
	// Exceptions are named exceptions; a map, so that policy ConfigMaps
	// merge them (a later one adds exceptions or changes one by name).
	Exceptions map[string]Exception `json:"exceptions,omitempty"`

	selectors map[string]labels.Selector
}

// Rule is the mode of one rule: Mode in every namespace but those
// Namespaces names.
type Rule struct {
	Mode       Mode            `json:"mode,omitempty"`
	Namespaces map[string]Mode `json:"namespaces,omitempty"`
}

// Exception exempts the objects it matches from its rules: a deny rule
// does not refuse them, a mutation rule does not change them. An object
// matches when it is in one of Namespaces (if given), its labels match
// Selector (if given) and its name is one of Names (if given); at least
// one of the three is required.
type Exception struct {
	Rules      []string              `json:"rules,omitempty"`
	Namespaces []string              `json:"namespaces,omitempty"`
	Selector   *metav1.LabelSelector `json:"selector,omitempty"`
	Names      []string              `json:"names,omitempty"`
	// Expires ends the exception (RFC 3339); none: it does not expire.
	Expires *metav1.Time `json:"expires,omitempty"`
	// Reason says why the exception was granted, for the logs.
	Reason string `json:"reason,omitempty"`
}

// Parse reads the enforcement section (the value of Key in the policy
// data, nil for none) and checks it whole: every error names its field.
func Parse(v any) (*Policy, error) { return parse(v, true) }

// ParsePart checks the enforcement section of one policy data file, which
// other files may complete (an exception's rules in one, its expiry in
// another): shapes, modes, selectors and dates, not completeness.
func ParsePart(v any) error {
	_, err := parse(v, false)
	return err
}

func parse(v any, whole bool) (*Policy, error) {
	p := &Policy{}
	if v == nil {
		return p, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Key, err)
	}
	strict, err := kjson.UnmarshalStrict(raw, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", Key, cleanJSONError(err))
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return nil, fmt.Errorf("%s: %s", Key, strings.Join(msgs, "; "))
	}
	var errs []error
	for _, name := range sortedKeys(p.Rules) {
		r := p.Rules[name]
		if name == "" {
			errs = append(errs, fmt.Errorf("%s.rules: a rule without a name", Key))
		}
		if r.Mode != "" {
			errs = append(errs, checkMode(fmt.Sprintf("%s.rules.%s.mode", Key, name), name, r.Mode))
		}
		for _, ns := range sortedKeys(r.Namespaces) {
			errs = append(errs, checkMode(fmt.Sprintf("%s.rules.%s.namespaces.%s", Key, name, ns), name, r.Namespaces[ns]))
		}
	}
	p.selectors = map[string]labels.Selector{}
	for _, name := range sortedKeys(p.Exceptions) {
		e := p.Exceptions[name]
		field := fmt.Sprintf("%s.exceptions.%s", Key, name)
		if e.Selector != nil {
			sel, err := metav1.LabelSelectorAsSelector(e.Selector)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s.selector: %w", field, err))
			}
			p.selectors[name] = sel
		}
		for i, r := range e.Rules {
			if r == "" || r == "*" {
				errs = append(errs, fmt.Errorf("%s.rules[%d]: want a rule name, got %q (an exception names its rules)", field, i, r))
			}
		}
		if !whole {
			continue
		}
		if len(e.Rules) == 0 {
			errs = append(errs, fmt.Errorf("%s.rules: want the rules it exempts from", field))
		}
		if len(e.Namespaces) == 0 && e.Selector == nil && len(e.Names) == 0 {
			errs = append(errs, fmt.Errorf("%s: want at least one of namespaces, selector and names (to exempt every object, set the rule's mode instead)", field))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

// Modes are the modes a rule may have, its default first: deny, warn and
// dryrun for a deny rule, apply and dryrun for a mutation rule.
func Modes(rule string) []Mode {
	if IsMutation(rule) {
		return []Mode{Apply, DryRun}
	}
	return []Mode{Deny, Warn, DryRun}
}

// DefaultMode is a rule's mode when the policy data sets none.
func DefaultMode(rule string) Mode { return Modes(rule)[0] }

func checkMode(field, rule string, m Mode) error {
	want := Modes(rule)
	if slices.Contains(want, m) {
		return nil
	}
	kind := "deny rule"
	if IsMutation(rule) {
		kind = "mutation rule"
	}
	return fmt.Errorf("%s: %q is not a mode of a %s (want one of %s)", field, m, kind, joinModes(want))
}

func joinModes(ms []Mode) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// cleanJSONError drops the Go type names from a decoding error.
func cleanJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s: want %s, got %s", te.Field, typeName(te.Type.String()), te.Value)
	}
	return err.Error()
}

func typeName(t string) string {
	switch {
	case strings.HasPrefix(t, "map["):
		return "an object"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case t == "string" || strings.HasSuffix(t, ".Mode"):
		return "a string"
	case strings.HasSuffix(t, ".Time"):
		return "an RFC 3339 time"
	}
	return "an object"
}

// RuleNames are the rules the policy names, in its rules and exceptions,
// sorted.
func (p *Policy) RuleNames() []string {
	var out []string
	for r := range p.Rules {
		out = append(out, r)
	}
	for _, e := range p.Exceptions {
		out = append(out, e.Rules...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Empty reports whether the policy changes nothing: every deny rule
// denies, every mutation rule applies.
func (p *Policy) Empty() bool { return p == nil || len(p.Rules) == 0 && len(p.Exceptions) == 0 }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// expired reports whether e has expired at now.
func (e Exception) expired(now time.Time) bool {
	return e.Expires != nil && !now.Before(e.Expires.Time)
}
