package decision

import (
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/sluice-data/sluice/policies/enforcement"
)

// Validating is what the validating policies decide for one object.
type Validating struct {
	// Deny, when not empty, rejects the object.
	Deny []Denial `json:"deny"`
	// Warnings are returned to the client as admission warnings.
	Warnings []string `json:"warnings"`
	// Claims are Dataset holds the webhook must record before admitting.
	Claims []Claim `json:"claims"`
	// Verdicts are what the enforcement policy made of each denial (set
	// by the pipeline after evaluation, not by the policies): Deny keeps
	// those it denies, Warnings gained those it warns of.
	Verdicts []enforcement.Verdict `json:"-"`
}

// Claim asks the webhook to hold a Dataset for the admitted operation.
type Claim struct {
	// Dataset is "<namespace>/<name>".
	Dataset string `json:"dataset"`
	// Kind is the operation's kind.
	Kind string `json:"kind"`
	// Conflicts are the kinds whose live holders block the claim.
	Conflicts []string `json:"conflicts"`
}

// DecodeValidating converts a policy result into a Validating decision,
// rejecting documents that do not fit the schema.
func DecodeValidating(v ast.Value) (*Validating, error) {
	out := &Validating{}
	d := newDecoder()
	err := d.object(v, func(k string, e ast.Value) (bool, error) {
		switch k {
		case "deny":
			return true, d.denials(e, &out.Deny)
		case "warnings":
			return true, d.strings(e, &out.Warnings)
		case "claims":
			return true, d.list(e, func(_ int, e ast.Value) error {
				var c Claim
				err := d.object(e, func(k string, e ast.Value) (bool, error) {
					switch k {
					case "dataset":
						return true, d.str(e, &c.Dataset)
					case "kind":
						return true, d.str(e, &c.Kind)
					case "conflicts":
						return true, d.strings(e, &c.Conflicts)
					}
					return false, nil
				})
				out.Claims = append(out.Claims, c)
				return err
			})
		}
		return false, nil
	})
	if err != nil {
		return nil, fmtSchemaError(err)
	}
	return out, nil
}
