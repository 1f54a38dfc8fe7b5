package policycmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestEvalAppliesTheWebhooksGates: `policy eval` prints what the webhook
// does, so a Pod the API server never sends to it (in kube-system, created
// by a kubelet) or that the webhook leaves unmutated (opted out, already
// injected: a FUSE container and the done label) comes back unchanged with
// the reason; it used to come back mutated. A Pod that only claims to be
// injected (the done label, no FUSE container) is mutated, as the webhook
// does (reliability audit M4). --webhook-configuration replaces the
// configuration Sluice ships.
func TestEvalAppliesTheWebhooksGates(t *testing.T) {
	objects := fixtureFile("serverful-affinity", "objects.yaml")
	data, err := os.ReadFile(fixtureFile("serverful-affinity", "pod.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	variant := func(name string, change func(*corev1.Pod)) string {
		pod := &corev1.Pod{}
		if err := yaml.UnmarshalStrict(data, pod); err != nil {
			t.Fatal(err)
		}
		change(pod)
		out, err := yaml.Marshal(pod)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, out, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	label := func(k, v string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels[k] = v
		}
	}
	for _, tc := range []struct {
		name string
		pod  string
		args []string
		why  string
	}{
		{"opted out", variant("opted-out", label("fluid.io/enable-injection", "false")), nil, "the webhook skips this Pod: injection disabled"},
		{"kube-system", variant("kube-system", func(p *corev1.Pod) { p.Namespace = "kube-system" }), nil, "namespace kube-system is not selected"},
		{"a kubelet", variant("kubelet", func(*corev1.Pod) {}), []string{"--user", "system:node:n1"}, "match condition not-from-a-kubelet is false"},
		{"already injected", variant("done", func(p *corev1.Pod) {
			label("done.sidecar.fluid.io/inject", "true")(p)
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "fluid-fuse-0", Image: "fuse"})
		}), nil, "the webhook skips this Pod: already injected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := run(t, append([]string{"eval", "--patch", "--pod", tc.pod, "--objects", objects}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(out) != "[]" || !strings.Contains(errOut, "left alone: ") || !strings.Contains(errOut, tc.why) {
				t.Errorf("patch %s, stderr %q; want [] and %q", out, errOut, tc.why)
			}
		})
	}

	// The done label alone is not believed: the Pod is mutated.
	out, errOut, err := run(t, "eval", "--patch", "--pod", variant("claims-done", label("done.sidecar.fluid.io/inject", "true")), "--objects", objects)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errOut, "left alone") || strings.TrimSpace(out) == "[]" {
		t.Errorf("a Pod labelled done without a FUSE container: patch %s, stderr %q; want it mutated", out, errOut)
	}

	// A configuration with Fluid's opt-out objectSelector does not send
	// the opted-out Pod.
	cfg, err := os.ReadFile("../../config/webhook/mutating.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withSelector := strings.ReplaceAll(string(cfg), "    matchConditions:\n", "    objectSelector:\n      matchExpressions:\n        - {key: fluid.io/enable-injection, operator: NotIn, values: [\"false\"]}\n    matchConditions:\n")
	path := filepath.Join(dir, "configuration.yaml")
	if err := os.WriteFile(path, []byte(withSelector), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = run(t, "eval", "--patch", "--webhook-configuration", path, "--pod", variant("opted-out", label("fluid.io/enable-injection", "false")), "--objects", objects)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "the API server does not send this Pod") || strings.TrimSpace(out) != "[]" {
		t.Errorf("with a configuration that does not send it, the opted-out Pod: patch %s, stderr %q; want the API server's gate", out, errOut)
	}
}

// TestEvalJudgesSkippedPodsByTheDenyRules (reliability audit M4): a Pod
// the webhook leaves unmutated (opted out, or already injected) is still
// refused by a platform's deny rule, naming it, as the webhook refuses it.
func TestEvalJudgesSkippedPodsByTheDenyRules(t *testing.T) {
	policyDir := t.TempDir()
	rule := "package sluice.mutating\n\nimport rego.v1\n\ndeny contains {\"rule\": \"no-imagenet\", \"message\": \"team-a may not use imagenet\"} if {\n\tsome v in input.datasetVolumes\n\tv.dataset.name == \"imagenet\"\n}\n"
	if err := os.WriteFile(filepath.Join(policyDir, "no_imagenet.rego"), []byte(rule), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fixtureFile("serverful-affinity", "pod.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, labels := range map[string]string{
		"opted-out": "{fuse.serverful.fluid.io/inject: \"true\", fluid.io/enable-injection: \"false\"}",
		"done":      "{fuse.serverful.fluid.io/inject: \"true\", done.sidecar.fluid.io/inject: \"true\"}",
	} {
		pod := strings.Replace(string(data), `labels: {fuse.serverful.fluid.io/inject: "true"}`, "labels: "+labels, 1)
		if name == "done" {
			pod = strings.Replace(pod, "  containers:\n", "  containers:\n    - {name: fluid-fuse-0, image: fuse}\n", 1)
		}
		path := filepath.Join(t.TempDir(), name+".yaml")
		if err := os.WriteFile(path, []byte(pod), 0o600); err != nil {
			t.Fatal(err)
		}
		_, errOut, err := run(t, "eval", "--patch", "--pod", path, "--objects", fixtureFile("serverful-affinity", "objects.yaml"), "--policies", policyDir)
		var exit *ExitError
		if !errors.As(err, &exit) || exit.Code != 1 || !strings.Contains(errOut, "no-imagenet") {
			t.Errorf("%s: err %v, stderr %q; want denied naming no-imagenet", name, err, errOut)
		}
	}
}
