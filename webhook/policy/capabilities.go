package policy

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// forbiddenBuiltins are the builtins a policy module may not call: they
// reach the network or the webhook's environment from the admission path
// (audit L8), as Gatekeeper also refuses http.send by default.
var forbiddenBuiltins = []string{"http.send", "net.lookup_ip_addr", "opa.runtime"}

// capabilities are OPA's for this version less forbiddenBuiltins: a
// module calling one of them does not compile ("undefined function").
func capabilities() *ast.Capabilities {
	c := ast.CapabilitiesForThisVersion()
	c.Builtins = slices.DeleteFunc(slices.Clone(c.Builtins), func(b *ast.Builtin) bool { return slices.Contains(forbiddenBuiltins, b.Name) })
	return c
}
