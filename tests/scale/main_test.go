package scale_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
)

func TestMain(m *testing.M) {
	// The simulated cluster's setup logs through controller-runtime; the
	// controller under measurement is a separate process with its own log.
	ctrl.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
