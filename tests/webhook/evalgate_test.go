package webhook_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook/metrics"
	"github.com/sluice-data/sluice/webhook/policycmd"
)

// mutatingCalls is how often the mutating webhook (in this process) has
// answered.
func mutatingCalls() float64 {
	var n float64
	for _, outcome := range []string{"allowed", "mutated", "denied", "errored", "errored-open"} {
		n += testutil.ToFloat64(metrics.Decisions.WithLabelValues("mutating", outcome))
	}
	return n
}

// TestPolicyEvalSendsWhatTheAPIServerSends: for Pods the API server sends
// to the mutating webhook (among them one that opted out of injection)
// and Pods it does not (kube-system, no claim, created by a kubelet), `sluice policy eval` decides the same:
// it runs the webhook configuration Sluice ships (installed here as
// config/webhook) through the API server's own selector and match-condition
// code, and leaves alone exactly the Pods the real API server never sent.
func TestPolicyEvalSendsWhatTheAPIServerSends(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		user string
		sent bool
	}{
		{"a Pod mounting a claim", datasetPod("web-0", nil, "www-data"), "", true},
		{"a Pod asking for data affinity", datasetPod("reader", map[string]string{datav1alpha1.LabelServerfulInject: "true"}, "imagenet"), "", true},
		// Sent, so that the deny rules judge it (reliability audit M4);
		// the webhook leaves it unmutated.
		{"a Pod that opted out", datasetPod("out", map[string]string{datav1alpha1.LabelEnableInjection: "false"}, "imagenet"), "", true},
		{"a Pod in kube-system", func() *corev1.Pod { p := datasetPod("system", nil, "imagenet"); p.Namespace = "kube-system"; return p }(), "", false},
		{"a Pod without a claim", func() *corev1.Pod {
			p := datasetPod("plain", nil, "x")
			p.Spec.Volumes = nil
			p.Spec.Containers[0].VolumeMounts = nil
			return p
		}(), "", false},
		{"a Pod a kubelet creates", datasetPod("bootstrap", nil, "imagenet"), "system:node:n1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.pod.Namespace == "" {
				tc.pod.Namespace = ns
			}
			c := env.Client
			if tc.user != "" {
				cfg := rest.CopyConfig(env.Config)
				cfg.Impersonate = rest.ImpersonationConfig{UserName: tc.user, Groups: []string{"system:nodes", "system:masters", "system:authenticated"}} // masters: no Node authorizer here
				var err error
				if c, err = client.New(cfg, client.Options{Scheme: env.Scheme}); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := yaml.Marshal(tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.pod.Name+".yaml")
			if err := os.WriteFile(path, raw, 0o600); err != nil {
				t.Fatal(err)
			}

			before := mutatingCalls()
			if err := c.Create(ctxT(t), tc.pod.DeepCopy(), client.DryRunAll); err != nil {
				t.Fatalf("dry-run create: %v", err)
			}
			sent := mutatingCalls() > before
			if sent != tc.sent {
				t.Fatalf("the API server sent the Pod to the webhook: %v, want %v", sent, tc.sent)
			}

			var out, errOut bytes.Buffer
			cmd := policycmd.NewCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			args := []string{"eval", "--patch", "--pod", path}
			if tc.user != "" {
				args = append(args, "--user", tc.user)
			}
			cmd.SetArgs(args)
			if err := cmd.Execute(); err != nil {
				t.Fatalf("policy eval: %v (%s)", err, errOut.String())
			}
			evalSends := !strings.Contains(errOut.String(), "the API server does not send this Pod")
			if sent != evalSends {
				t.Errorf("the API server sent the Pod to the webhook: %v; policy eval says it does: %v (%s)", sent, evalSends, errOut.String())
			}
		})
	}
}
