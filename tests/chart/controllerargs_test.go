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
	cmd := controller.NewCommand(nil, nil)
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

// TestWebhookAndControllerAgree (reliability audit L7): the settings both
// components must share reach both from one value: the claim grace period
// (a shorter one in the controller would release a claim whose admission
// is still in flight), the namespace of the FUSE records (audit M12:
// the webhook reads where the controller writes) and the policy namespaces
// (the operation conflict table of their policy data), the install profile
// (the guards the controller checks at reconcile are the webhook's), and
// secure metrics (audit L11).
func TestWebhookAndControllerAgree(t *testing.T) {
	objs := render(t, parseValues(t, "claimGracePeriod: 45s\nwebhook: {policyNamespaces: [platform]}\npolicies: {profile: fluid-compatible}\n"))
	flagsOf := func(name, ctr string) map[string]string {
		out := map[string]string{}
		for _, a := range strs(t, container(t, find(t, objs, "Deployment", name), ctr), "args") {
			if k, v, ok := strings.Cut(a, "="); ok {
				out[k] = v
			}
		}
		return out
	}
	c, w := flagsOf("sluice-controller", "controller"), flagsOf("sluice-webhook", "webhook")
	for flag, want := range map[string]string{"--claim-grace-period": "45s", "--fuse-record-namespace": namespace, "--policy-namespaces": namespace + ",platform", "--metrics-secure": "true", "--policy-profile": "fluid-compatible"} {
		if c[flag] != want || w[flag] != want {
			t.Errorf("%s: controller %q, webhook %q, want both %q", flag, c[flag], w[flag], want)
		}
	}
}
