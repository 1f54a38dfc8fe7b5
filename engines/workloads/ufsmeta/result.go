package ufsmeta

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/sluice-data/sluice/engines"
)

// maxMessage is the most the kubelet keeps of a termination message.
const maxMessage = 4096

// result is the metadata pod's termination message, one JSON object.
type result struct {
	Bytes *int64 `json:"bytes"`
	Files *int64 `json:"files"`
}

// Message is the termination message `sluice ufs-count` writes for u:
// {"bytes":<n>,"files":<n>}.
func Message(u engines.UFSUsage) string {
	b, _ := json.Marshal(result{Bytes: &u.Bytes, Files: &u.Files})
	return string(b)
}

// ParseMessage reads a termination message Message wrote: one JSON object
// with exactly the two non-negative counts. Anything else is an error
// quoting (the start of) the message.
func ParseMessage(msg string) (engines.UFSUsage, error) {
	bad := func(why string) (engines.UFSUsage, error) {
		quoted := msg
		if len(quoted) > 200 {
			quoted = quoted[:200] + "..."
		}
		return engines.UFSUsage{}, fmt.Errorf("the metadata pod's result %q is not {\"bytes\":<n>,\"files\":<n>}: %s", quoted, why)
	}
	if len(msg) > maxMessage {
		return bad("it is too long")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(msg)))
	dec.DisallowUnknownFields()
	var r result
	if err := dec.Decode(&r); err != nil {
		return bad(err.Error())
	}
	if dec.More() {
		return bad("it goes on after the object")
	}
	switch {
	case r.Bytes == nil || r.Files == nil:
		return bad("a count is missing")
	case *r.Bytes < 0 || *r.Files < 0:
		return bad("a count is negative")
	}
	return engines.UFSUsage{Bytes: *r.Bytes, Files: *r.Files}, nil
}
