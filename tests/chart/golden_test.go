package chart_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenCases are the value sets whose renders are kept in
// testdata/golden/<name>.yaml.
var goldenCases = []struct{ name, values string }{
	{"default", ``},
	{"cert-manager-self-signed", `certManager: {enabled: true}`},
	{"cert-manager-cluster-issuer", `
certManager:
  enabled: true
  issuerRef: {name: platform-ca, kind: ClusterIssuer}
  duration: 720h
  renewBefore: 240h
webhook:
  certificate: {secretName: sluice-serving-cert}
`},
	{"client-auth", `
webhook:
  clientAuth: {enabled: true, caConfigMap: apiserver-client-ca, allowedNames: [kube-apiserver-webhook-client, apiserver.example.com]}
  networkPolicy:
    webhookFrom: [{ipBlock: {cidr: 10.0.0.0/24}}]
    metricsFrom:
      - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
        podSelector: {matchLabels: {app.kubernetes.io/name: prometheus}}
`},
	{"ha-off", `
controller: {replicas: 1, leaderElect: false}
webhook: {replicas: 1}
`},
	{"custom-exclusions", `
webhook:
  excludeNamespaces: [monitoring, cert-manager, kube-system]
  policyNamespaces: [platform-policies]
  mutating:
    labelledPods: {failurePolicy: Ignore, timeoutSeconds: 10}
    claimPods: {timeoutSeconds: 1}
  validating: {failurePolicy: Ignore, timeoutSeconds: 5}
`},
	{"self-registering-csi-and-policies", `
image: {repository: registry.example.com/platform/sluice, tag: v1.2.3}
imagePullSecrets: [{name: regcred}]
csi:
  kubeletDir: /var/snap/microk8s/common/var/lib/kubelet
  registrar: {enabled: false}
policies:
  config:
    mutating:
      affinity: {allDatasetPods: true}
  modules:
    extra.rego: |
      package sluice.extra
      deny := false
commonLabels: {team: data-platform}
`},
	{"monitoring", monitoringValues},
}

func TestGoldenRenders(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			rel, err := dryRun(loadChart(t), parseValues(t, tc.values), namespace)
			if err != nil {
				t.Fatalf("rendering: %v", err)
			}
			got := strings.TrimSpace(rel.Manifest) + "\n"
			path := filepath.Join("testdata", "golden", tc.name+".yaml")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("render differs from %s (-want +got; run `go test ./tests/chart -run Golden -update` if intended):\n%s", path, diff)
			}
		})
	}
}
