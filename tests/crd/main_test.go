package crd_test

import (
	"os"
	"testing"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { os.Exit(testenv.Main(m, &env)) }
