package decision

import (
	"bytes"
	"encoding/json"
)

// strictUnmarshal decodes JSON into v and fails on unknown fields.
func strictUnmarshal(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
