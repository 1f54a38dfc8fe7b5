package enforcement

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Outcome is what became of one rule's finding for one object.
type Outcome string

const (
	// Denied: the object was refused (mode deny).
	Denied Outcome = "denied"
	// Warned: admitted with the denial as a warning (mode warn).
	Warned Outcome = "warned"
	// DryRunned: admitted silently, or not changed by a mutation rule
	// (mode dryrun).
	DryRunned Outcome = "dryrun"
	// Excepted: an exception covers the object.
	Excepted Outcome = "excepted"
	// Applied: a mutation rule changed the object (mode apply).
	Applied Outcome = "applied"
)

// Object is what exceptions match: an object's namespace, name and labels.
type Object struct {
	Namespace string
	Name      string
	Labels    map[string]string
}

// Verdict is the enforcement of one rule that fired for an object.
type Verdict struct {
	Rule    string
	Mode    Mode
	Outcome Outcome
	// Exception names the exception that covered the object (Excepted).
	Exception string
	// Message is the rule's finding: a denial's message, or what a
	// mutation rule changes.
	Message string
}

// Mode returns rule's mode in namespace.
func (p *Policy) Mode(rule, namespace string) Mode {
	def := DefaultMode(rule)
	if p == nil {
		return def
	}
	r, ok := p.Rules[rule]
	if !ok {
		return def
	}
	if m, ok := r.Namespaces[namespace]; ok {
		return m
	}
	if r.Mode != "" {
		return r.Mode
	}
	return def
}

// Judge returns the verdict on rule's finding msg for obj at now: the
// first unexpired exception (by name) that covers obj, or else the rule's
// mode in obj's namespace.
func (p *Policy) Judge(rule, msg string, obj Object, now time.Time) Verdict {
	mode := p.Mode(rule, obj.Namespace)
	v := Verdict{Rule: rule, Mode: mode, Message: msg}
	if name, ok := p.exception(rule, obj, now); ok {
		v.Outcome, v.Exception = Excepted, name
		return v
	}
	switch mode {
	case Warn:
		v.Outcome = Warned
	case DryRun:
		v.Outcome = DryRunned
	case Apply:
		v.Outcome = Applied
	default:
		v.Outcome = Denied
	}
	return v
}

func (p *Policy) exception(rule string, obj Object, now time.Time) (string, bool) {
	if p == nil {
		return "", false
	}
	for _, name := range sortedKeys(p.Exceptions) {
		e := p.Exceptions[name]
		if !slices.Contains(e.Rules, rule) || e.expired(now) {
			continue
		}
		if len(e.Namespaces) > 0 && !slices.Contains(e.Namespaces, obj.Namespace) {
			continue
		}
		if len(e.Names) > 0 && !slices.Contains(e.Names, obj.Name) {
			continue
		}
		if e.Selector != nil && !p.selector(name, e).Matches(labels.Set(obj.Labels)) {
			continue
		}
		return name, true
	}
	return "", false
}

// selector is exception name's selector, parsed by Parse (or now, for a
// Policy built otherwise); one that does not parse matches nothing.
func (p *Policy) selector(name string, e Exception) labels.Selector {
	if sel, ok := p.selectors[name]; ok {
		return sel
	}
	sel, err := metav1.LabelSelectorAsSelector(e.Selector)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

// Exception returns the named exception.
func (p *Policy) Exception(name string) (Exception, bool) {
	if p == nil {
		return Exception{}, false
	}
	e, ok := p.Exceptions[name]
	return e, ok
}

// WarningOf is the admission warning of a warned verdict.
func WarningOf(v Verdict) string {
	return fmt.Sprintf("%s (rule %s, in warn mode: admitted, refused once the rule denies)", v.Message, v.Rule)
}

// ExceptionHint says how to get an exception to the rules of a denial,
// appended to the message the requester sees.
func ExceptionHint(rules []string) string {
	rules = slices.Compact(slices.Sorted(slices.Values(rules)))
	noun := "rule"
	if len(rules) > 1 {
		noun = "rules"
	}
	return fmt.Sprintf("if this object needs an exception to %s %s, a platform team can grant one in the policy data (enforcement.exceptions; docs/policies.md, \"Grant an exception\")",
		noun, strings.Join(rules, ", "))
}
