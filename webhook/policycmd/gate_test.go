package policycmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestEvalAppliesTheWebhooksGates: `policy eval` prints what the webhook
// does, so a Pod the API server never sends to it (opted out, in
// kube-system, created by a kubelet) or that the webhook skips (already
// injected) comes back unchanged with the reason; it used to come back
// mutated. --webhook-configuration replaces the configuration Sluice ships.
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
		{"opted out", variant("opted-out", label("fluid.io/enable-injection", "false")), nil, "the API server does not send this Pod"},
		{"kube-system", variant("kube-system", func(p *corev1.Pod) { p.Namespace = "kube-system" }), nil, "namespace kube-system is not selected"},
		{"a kubelet", variant("kubelet", func(*corev1.Pod) {}), []string{"--user", "system:node:n1"}, "match condition not-from-a-kubelet is false"},
		{"already injected", variant("done", label("done.sidecar.fluid.io/inject", "true")), nil, "the webhook skips this Pod: already injected"},
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

	// A configuration without the opt-out selector sends the opted-out Pod.
	cfg, err := os.ReadFile("../../config/webhook/mutating.yaml")
	if err != nil {
		t.Fatal(err)
	}
	permissive := strings.ReplaceAll(string(cfg), `- {key: fluid.io/enable-injection, operator: NotIn, values: ["false"]}`, `- {key: fluid.io/no-such-label, operator: DoesNotExist}`)
	path := filepath.Join(dir, "configuration.yaml")
	if err := os.WriteFile(path, []byte(permissive), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run(t, "eval", "--patch", "--webhook-configuration", path, "--pod", variant("opted-out", label("fluid.io/enable-injection", "false")), "--objects", objects)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "the webhook skips this Pod: injection disabled") || strings.TrimSpace(out) != "[]" {
		t.Errorf("with a configuration that sends it, the opted-out Pod: patch %s, stderr %q; want the handler's own guard", out, errOut)
	}
}
