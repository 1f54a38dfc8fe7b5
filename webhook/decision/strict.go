package decision

import "fmt"

// fmtSchemaError wraps a decoding error into the message webhooks return.
func fmtSchemaError(err error) error {
	return fmt.Errorf("the decision document does not match the decision schema: %w", err)
}
