package controller

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"
)

func TestAPIWarningsAreLoggedOncePerMessage(t *testing.T) {
	var lines []string
	ctx := crlog.IntoContext(context.Background(), funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}))
	h := apiWarnings()
	const falseAlarm = `spec.resources.requests[storage]: fractional byte value "100Pi" is invalid, must be an integer`
	for range 3 {
		h.HandleWarningHeaderWithContext(ctx, 299, "-", falseAlarm)
	}
	h.HandleWarningHeaderWithContext(ctx, 299, "-", "another warning")
	if len(lines) != 2 || !strings.Contains(lines[0], "100Pi") || !strings.Contains(lines[1], "another warning") {
		t.Fatalf("logged %q, want each warning once", lines)
	}
}
