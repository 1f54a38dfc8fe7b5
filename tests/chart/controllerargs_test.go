package chart_test

import (
	"flag"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/sluice-data/sluice/controller"
)

// TestControllerArgsAreItsFlags: every argument the chart gives `sluice
// controller` is one of its flags, with a value it accepts; the metadata
// Jobs run the chart's own image.
func TestControllerArgsAreItsFlags(t *testing.T) {
	args := strs(t, container(t, find(t, render(t, parseValues(t, "")), "Deployment", "sluice-controller"), "controller"), "args")
	if len(args) == 0 || args[0] != "controller" {
		t.Fatalf("controller args %q", args)
	}
	cmd := controller.NewCommand(nil)
	// The root command adds the logging flags to every subcommand.
	zapFlags := flag.NewFlagSet("zap", flag.ContinueOnError)
	(&zap.Options{}).BindFlags(zapFlags)
	cmd.Flags().AddGoFlagSet(zapFlags)
	if err := cmd.Flags().Parse(args[1:]); err != nil {
		t.Fatalf("sluice controller %s: %v", strings.Join(args[1:], " "), err)
	}
	if image := cmd.Flags().Lookup("sluice-image").Value.String(); !strings.HasPrefix(image, "ghcr.io/sluice-data/sluice:") {
		t.Errorf("--sluice-image=%q, want the chart's image", image)
	}
}
