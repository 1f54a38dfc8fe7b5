package chart_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/policies"
)

// TestSchemaRejectsWrongValues checks that values.schema.json stops a
// wrong value at install time, with a message that names it.
func TestSchemaRejectsWrongValues(t *testing.T) {
	for _, tc := range []struct {
		name, values string
		want         []string // substrings of the error
	}{
		{"unknown failure policy", `webhook: {validating: {failurePolicy: Sometimes}}`,
			[]string{"/webhook/validating/failurePolicy", "Fail", "Ignore"}},
		{"timeout above the API server's limit", `webhook: {mutating: {labelledPods: {timeoutSeconds: 45}}}`,
			[]string{"/webhook/mutating/labelledPods/timeoutSeconds", "30"}},
		{"no webhook replica", `webhook: {replicas: 0}`,
			[]string{"/webhook/replicas", "1"}},
		{"two controllers without leader election", `controller: {replicas: 2, leaderElect: false}`,
			[]string{"/controller/leaderElect"}},
		{"a namespace name that is not a DNS label", `webhook: {excludeNamespaces: [Kube_System]}`,
			[]string{"/webhook/excludeNamespaces/0"}},
		{"a misspelt key", `webhok: {replicas: 3}`,
			[]string{"webhok"}},
		{"a misspelt nested key", `csi: {kubeletdir: /var/lib/k0s/kubelet}`,
			[]string{"kubeletdir"}},
		{"a relative kubelet dir", `csi: {kubeletDir: var/lib/kubelet}`,
			[]string{"/csi/kubeletDir"}},
		{"a digest that is not one", `image: {digest: latest}`,
			[]string{"/image/digest"}},
		{"a root image user", `image: {user: 0}`,
			[]string{"/image/user"}},
		{"an unknown issuer kind", `certManager: {enabled: true, issuerRef: {name: ca, kind: Vault}}`,
			[]string{"/certManager/issuerRef/kind"}},
		{"a duration cert-manager cannot parse", `certManager: {duration: 90d}`,
			[]string{"/certManager/duration"}},
		{"a policy module that is not Rego", `policies: {modules: {notes.txt: hello}}`,
			[]string{"/policies/modules", "notes.txt"}},
		{"a resource quantity that is not one", `webhook: {resources: {limits: {memory: lots}}}`,
			[]string{"/webhook/resources/limits/memory"}},
		{"a host port range that is not first-last", `controller: {hostPortRange: "20000"}`,
			[]string{"/controller/hostPortRange"}},
		{"an unknown install profile", `policies: {profile: fluid}`,
			[]string{"/policies/profile", "restricted", "fluid-compatible"}},
		// policies.config's schema is the policy data's (policies/data.schema.json).
		{"a misspelt policy data key", `policies: {config: {mutating: {affinity: {allDatasetPod: true}}}}`,
			[]string{"/policies/config/mutating/affinity", "allDatasetPod"}},
		{"a policy data value of the wrong type", `policies: {config: {validating: {guards: {team-a: {localPaths: /data}}}}}`,
			[]string{"/policies/config/validating/guards/team-a/localPaths"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dryRun(loadChart(t), parseValues(t, tc.values), namespace)
			if err == nil {
				t.Fatalf("values %s were accepted", tc.values)
			}
			msg := err.Error()
			if !strings.Contains(msg, "values don't meet the specifications of the schema") {
				t.Errorf("the error is not the schema's: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the error does not mention %q:\n%v", w, err)
				}
			}
			t.Logf("%s: %v", tc.values, err)
		})
	}
}

// TestSchemaAcceptsTheDocumentedValues renders values that docs/install.md
// shows, so the schema does not reject what the docs recommend.
func TestSchemaAcceptsTheDocumentedValues(t *testing.T) {
	for _, values := range []string{
		`controller: {replicas: 1}`,
		`controller: {replicas: 1, leaderElect: false}`,
		`controller: {hostPortRange: 40000-40999}`,
		`webhook: {replicas: 3, resources: {requests: {cpu: 200m, memory: 512Mi}, limits: {memory: 2Gi}}}`,
		`image: {repository: registry.example.com/sluice, digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}`,
		`csi: {enabled: false}`,
		`policies: {create: false}`,
		`policies: {profile: fluid-compatible}`,
		`certManager: {enabled: true, issuerRef: {name: internal-ca, kind: Issuer}}`,
		`webhook: {podDisruptionBudget: {enabled: false}, logLevel: "2"}`,
		`webhook: {clientAuth: {enabled: true, caConfigMap: apiserver-client-ca, allowedNames: [kube-apiserver-webhook-client]}}`,
		`webhook: {clientAuth: {enabled: true, caSecret: apiserver-client-ca, caKey: ca.pem}, networkPolicy: {enabled: false}}`,
	} {
		if _, err := dryRun(loadChart(t), parseValues(t, values), namespace); err != nil {
			t.Errorf("values %s: %v", values, err)
		}
	}
}

// TestTheProfileEnumIsThePolicies: the schema's policies.profile values
// are the profiles the binary embeds.
func TestTheProfileEnumIsThePolicies(t *testing.T) {
	var schema struct {
		Properties struct {
			Policies struct {
				Properties struct {
					Profile struct {
						Enum []string `json:"enum"`
					} `json:"profile"`
				} `json:"properties"`
			} `json:"policies"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(loadChart(t).Schema, &schema); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(schema.Properties.Policies.Properties.Profile.Enum))
	if want := policies.Profiles(); !slices.Equal(got, want) {
		t.Errorf("values.schema.json policies.profile enum %v, want the embedded profiles %v", got, want)
	}
}

// TestClientAuthNeedsOneCA: webhook.clientAuth on without a CA source, or
// with both, or allowedNames without it, fails the install naming the
// values.
func TestClientAuthNeedsOneCA(t *testing.T) {
	for _, tc := range []struct{ values, want string }{
		{`webhook: {clientAuth: {enabled: true}}`, "exactly one of webhook.clientAuth.caConfigMap and webhook.clientAuth.caSecret"},
		{`webhook: {clientAuth: {enabled: true, caConfigMap: a, caSecret: b}}`, "exactly one of webhook.clientAuth.caConfigMap and webhook.clientAuth.caSecret"},
		{`webhook: {clientAuth: {allowedNames: [kube-apiserver]}}`, "webhook.clientAuth.allowedNames needs webhook.clientAuth.enabled"},
	} {
		_, err := dryRun(loadChart(t), parseValues(t, tc.values), namespace)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("values %s: %v, want an error with %q", tc.values, err, tc.want)
		}
	}
}
