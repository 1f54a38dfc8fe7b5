package enginetest

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Expand is what the kubelet makes of s in a container's command, args or
// env value: "$$" is "$", "$(NAME)" is NAME's value when env has it and is
// kept otherwise, an unterminated "$(" and any other "$" are kept. It
// follows the kubelet's expansion (k8s.io/kubernetes
// third_party/forked/golang/expansion), so that tests check what the
// process receives.
func Expand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		rest := s[i+1:]
		switch rest[0] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := rest[1:end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += end + 1
		default:
			b.WriteString("$" + rest[:1])
			i++
		}
	}
	return b.String()
}

// Effective is c as its process sees it: command, args and env values
// expanded as the kubelet expands them. A variable from a Secret or field
// reference stands for itself ("<NAME>"), and an env value sees the
// variables defined before it, as in the kubelet.
func Effective(c corev1.Container) corev1.Container {
	c = *c.DeepCopy()
	env := map[string]string{}
	for i, e := range c.Env {
		if e.ValueFrom != nil {
			env[e.Name] = "<" + e.Name + ">"
			continue
		}
		c.Env[i].Value = Expand(e.Value, env)
		env[e.Name] = c.Env[i].Value
	}
	for i := range c.Command {
		c.Command[i] = Expand(c.Command[i], env)
	}
	for i := range c.Args {
		c.Args[i] = Expand(c.Args[i], env)
	}
	return c
}
