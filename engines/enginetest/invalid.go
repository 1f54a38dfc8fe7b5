package enginetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/engines"
)

// WantInvalid checks that err is an engines.Error with ReasonInvalidSpec
// (the test stops if not) whose message holds each of the fragments, e.g.
// the field at fault.
func WantInvalid(t testing.TB, err error, fragments ...string) {
	t.Helper()
	var e *engines.Error
	if !errors.As(err, &e) || e.Reason != engines.ReasonInvalidSpec {
		t.Fatalf("error %v, want an InvalidSpec engines.Error", err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not name %q", err, f)
		}
	}
}
