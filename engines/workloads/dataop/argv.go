package dataop

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines"
)

// NoExpand is s as a container's command, args or env value must say it
// for the process to receive s: the kubelet expands $(VAR) references
// there, and "$$" is its escape for "$".
func NoExpand(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// Args are literal arguments, each passed to the process exactly
// (NoExpand).
func Args(args ...string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = NoExpand(a)
	}
	return out
}

// Step is one command of an operation: a container's name and its argv as
// the kubelet reads it (literal parts through NoExpand or Args). No shell
// reads it.
type Step struct {
	Name string
	Argv []string
}

// Sequence runs steps in order in one pod: every step but the last is an
// init container, the last is the pod's container. Each is a copy of
// template (image, environment, mounts, resources) running its step's argv
// as its command.
func Sequence(template corev1.Container, steps []Step) (initContainers, containers []corev1.Container) {
	for i, s := range steps {
		c := *template.DeepCopy()
		c.Name, c.Command, c.Args = s.Name, s.Argv, nil
		if i == len(steps)-1 {
			containers = append(containers, c)
		} else {
			initContainers = append(initContainers, c)
		}
	}
	return initContainers, containers
}

// Flags turns engine options into long flags in the kubelet's form, sorted
// by name: "--name=value", or "--name" for an empty value (Fluid's
// mapping). Names in skip are left out (options the engine reads itself).
// field names the options in errors, e.g. spec.options.
func Flags(field string, opts map[string]string, skip ...string) ([]string, error) {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if slices.Contains(skip, k) {
			continue
		}
		if k == "" || strings.HasPrefix(k, "-") || strings.Contains(k, "=") {
			return nil, engines.Invalid("%s[%q]: an option name becomes the flag --<name>; it may not be empty, start with - or contain =", field, k)
		}
		flag := "--" + k
		if v := opts[k]; v != "" {
			flag = fmt.Sprintf("--%s=%s", k, v)
		}
		out = append(out, NoExpand(flag))
	}
	return out, nil
}
