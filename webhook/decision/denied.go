package decision

import "strings"

// DeniedError is a policy's refusal of an admission request (a Pod or an
// object); it lists every reason.
type DeniedError struct {
	Denials []Denial
}

func (e *DeniedError) Error() string {
	msgs := make([]string, len(e.Denials))
	for i, d := range e.Denials {
		msgs[i] = d.String()
	}
	return strings.Join(msgs, "; ")
}
