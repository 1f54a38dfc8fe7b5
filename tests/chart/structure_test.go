package chart_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func strs(t *testing.T, obj map[string]any, fields ...string) []string {
	t.Helper()
	v, _, err := unstructured.NestedStringSlice(obj, fields...)
	if err != nil {
		t.Fatalf("%v: %v", fields, err)
	}
	return v
}

func rulesOf(t *testing.T, o *unstructured.Unstructured) []map[string]any {
	t.Helper()
	raw, _, _ := unstructured.NestedSlice(o.Object, "rules")
	out := make([]map[string]any, 0, len(raw))
	for _, r := range raw {
		out = append(out, r.(map[string]any))
	}
	return out
}

// TestLeastPrivilege checks every rendered role, in every golden case: no
// wildcard, no built-in aggregated role bound, every binding to a role the
// chart renders for its own ServiceAccount, and Secrets granted only by
// name, with two exceptions: the controller, whose generated role needs
// them in runtimes' namespaces (Helm's release records of the engines'
// charts), and list and watch, nothing else, in the webhook's Role in the
// release's namespace (self-managed certificates: cert-controller caches
// the Secrets of its namespace; see TestCertificateModes).
func TestLeastPrivilege(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, parseValues(t, tc.values))
			roles := map[string]*unstructured.Unstructured{}
			sas := map[string]bool{}
			for _, o := range objs {
				switch o.GetKind() {
				case "Role", "ClusterRole":
					roles[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = o
					for _, r := range rulesOf(t, o) {
						for _, f := range []string{"verbs", "resources", "apiGroups", "nonResourceURLs"} {
							if slices.Contains(strs(t, r, f), "*") {
								t.Errorf("%s %s: wildcard %s in %v", o.GetKind(), o.GetName(), f, r)
							}
						}
						watchesNamespace := o.GetKind() == "Role" && o.GetName() == "sluice-webhook-cert" &&
							o.GetNamespace() == "sluice-system" && slices.Equal(strs(t, r, "verbs"), []string{"list", "watch"})
						if slices.Contains(strs(t, r, "resources"), "secrets") && len(strs(t, r, "resourceNames")) == 0 &&
							o.GetName() != "sluice-controller" && !watchesNamespace {
							t.Errorf("%s %s grants Secrets without naming them: %v", o.GetKind(), o.GetName(), r)
						}
					}
				case "ServiceAccount":
					sas[o.GetNamespace()+"/"+o.GetName()] = true
				}
			}
			for _, o := range objs {
				if k := o.GetKind(); k != "RoleBinding" && k != "ClusterRoleBinding" {
					continue
				}
				ref, _, _ := unstructured.NestedStringMap(o.Object, "roleRef")
				ns := ""
				if ref["kind"] == "Role" {
					ns = o.GetNamespace()
				}
				if roles[ref["kind"]+"/"+ns+"/"+ref["name"]] == nil {
					t.Errorf("%s %s binds %s %s, which the chart does not render", o.GetKind(), o.GetName(), ref["kind"], ref["name"])
				}
				subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
				for _, s := range subjects {
					s := s.(map[string]any)
					// Prometheus's ServiceAccount (monitoring.prometheusServiceAccount)
					// may read the metrics, and nothing else.
					prometheus := o.GetName() == "sluice-metrics-reader" && ref["name"] == "sluice-metrics-reader"
					if s["kind"] != "ServiceAccount" || (!sas[fmt.Sprint(s["namespace"], "/", s["name"])] && !prometheus) {
						t.Errorf("%s %s binds %v, not one of the chart's ServiceAccounts", o.GetKind(), o.GetName(), s)
					}
				}
			}
			// One ServiceAccount per component, each used by its workload.
			for kind, name := range map[string]string{"Deployment": "sluice-controller", "DaemonSet": "sluice-csi"} {
				sa, _, _ := unstructured.NestedString(find(t, objs, kind, name).Object, "spec", "template", "spec", "serviceAccountName")
				if sa != name {
					t.Errorf("%s %s runs as %q, want %q", kind, name, sa, name)
				}
			}
			sa, _, _ := unstructured.NestedString(find(t, objs, "Deployment", "sluice-webhook").Object, "spec", "template", "spec", "serviceAccountName")
			if sa != "sluice-webhook" {
				t.Errorf("the webhook runs as %q", sa)
			}
		})
	}
}

func container(t *testing.T, o *unstructured.Unstructured, name string) map[string]any {
	t.Helper()
	cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
	for _, c := range cs {
		if c.(map[string]any)["name"] == name {
			return c.(map[string]any)
		}
	}
	t.Fatalf("%s %s has no container %s", o.GetKind(), o.GetName(), name)
	return nil
}

func excluded(t *testing.T, o *unstructured.Unstructured) [][]string {
	t.Helper()
	whs, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
	var out [][]string
	for _, w := range whs {
		exprs, _, _ := unstructured.NestedSlice(w.(map[string]any), "namespaceSelector", "matchExpressions")
		for _, e := range exprs {
			e := e.(map[string]any)
			if e["key"] == "kubernetes.io/metadata.name" && e["operator"] == "NotIn" {
				out = append(out, strs(t, e, "values"))
			}
		}
	}
	return out
}

// TestCertificateModes checks the structure of both modes: who writes the
// Secret, who may, and where the CA comes from.
func TestCertificateModes(t *testing.T) {
	t.Run("self-managed", func(t *testing.T) {
		objs := render(t, nil)
		secret := find(t, objs, "Secret", "sluice-webhook-cert")
		if _, ok := secret.Object["data"]; ok {
			t.Errorf("the chart renders certificate data; the webhook writes it")
		}
		// What the webhook does: get and update its Secret, update the two
		// configurations, and watch through caches (cert-controller's: of
		// the Secrets in its namespace and of every configuration). Only
		// list and watch go unnamed.
		byNames := func(rules []map[string]any) map[string][]string {
			out := map[string][]string{}
			for _, r := range rules {
				for _, res := range strs(t, r, "resources") {
					key := res + " " + strings.Join(strs(t, r, "resourceNames"), ",")
					out[key] = append(out[key], strs(t, r, "verbs")...)
				}
			}
			return out
		}
		want := map[string][]string{"secrets sluice-webhook-cert": {"get", "update"}, "secrets ": {"list", "watch"}}
		if got := byNames(rulesOf(t, find(t, objs, "Role", "sluice-webhook-cert"))); !maps.EqualFunc(got, want, slices.Equal) {
			t.Errorf("the webhook's Secret rules: %v, want %v", got, want)
		}
		want = map[string][]string{
			"mutatingwebhookconfigurations sluice-mutating-webhook":     {"get", "update"},
			"validatingwebhookconfigurations sluice-validating-webhook": {"get", "update"},
			"mutatingwebhookconfigurations ":                            {"list", "watch"},
			"validatingwebhookconfigurations ":                          {"list", "watch"},
		}
		if got := byNames(rulesOf(t, find(t, objs, "ClusterRole", "sluice-webhook-cabundle"))); !maps.EqualFunc(got, want, slices.Equal) {
			t.Errorf("the caBundle rules: %v, want %v", got, want)
		}
		vol, _, _ := unstructured.NestedSlice(find(t, objs, "Deployment", "sluice-webhook").Object, "spec", "template", "spec", "volumes")
		if v := vol[0].(map[string]any); v["emptyDir"] == nil {
			t.Errorf("the certificate directory is %v, want an emptyDir the webhook writes", v)
		}
		for _, k := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
			for _, o := range objs {
				if o.GetKind() == k && len(o.GetAnnotations()) > 0 {
					t.Errorf("%s has annotations %v in self-managed mode", k, o.GetAnnotations())
				}
			}
		}
		for _, o := range objs {
			if strings.HasPrefix(o.GetAPIVersion(), "cert-manager.io/") {
				t.Errorf("self-managed mode renders %s %s", o.GetKind(), o.GetName())
			}
		}
	})
	for _, tc := range goldenCases {
		if !strings.HasPrefix(tc.name, "cert-manager") {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			vals := parseValues(t, tc.values)
			objs := render(t, vals)
			cert := find(t, objs, "Certificate", "sluice-webhook")
			secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
			vol, _, _ := unstructured.NestedSlice(find(t, objs, "Deployment", "sluice-webhook").Object, "spec", "template", "spec", "volumes")
			if got := vol[0].(map[string]any)["secret"].(map[string]any)["secretName"]; got != secretName {
				t.Errorf("the webhook mounts Secret %v; the Certificate writes %s", got, secretName)
			}
			if dns := strs(t, cert.Object, "spec", "dnsNames"); !slices.Contains(dns, "sluice-webhook.sluice-system.svc") {
				t.Errorf("the Certificate does not cover the Service: %v", dns)
			}
			for _, k := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
				for _, o := range objs {
					if o.GetKind() == k && o.GetAnnotations()["cert-manager.io/inject-ca-from"] != "sluice-system/sluice-webhook" {
						t.Errorf("%s annotations: %v", k, o.GetAnnotations())
					}
				}
			}
			issuer, _, _ := unstructured.NestedStringMap(cert.Object, "spec", "issuerRef")
			_, hasIssuer := vals["certManager"].(map[string]any)["issuerRef"]
			var issuers int
			for _, o := range objs {
				if o.GetKind() == "Issuer" {
					issuers++
				}
				if o.GetKind() == "Secret" || (o.GetKind() == "ClusterRole" && strings.HasSuffix(o.GetName(), "-cabundle")) {
					t.Errorf("cert-manager mode renders %s %s", o.GetKind(), o.GetName())
				}
				for _, r := range rulesOf(t, o) {
					if o.GetName() != "sluice-controller" && slices.Contains(strs(t, r, "resources"), "secrets") {
						t.Errorf("%s %s grants Secrets in cert-manager mode", o.GetKind(), o.GetName())
					}
				}
			}
			switch {
			case hasIssuer && (issuers != 0 || issuer["name"] != "platform-ca" || issuer["kind"] != "ClusterIssuer"):
				t.Errorf("given ClusterIssuer: %d Issuers rendered, issuerRef %v", issuers, issuer)
			case !hasIssuer && (issuers != 2 || issuer["name"] != "sluice-webhook-ca" || issuer["kind"] != "Issuer"):
				t.Errorf("own CA: %d Issuers rendered, issuerRef %v", issuers, issuer)
			case !hasIssuer:
				// The chain: a self-signed Issuer issues the CA, which keeps
				// its key when renewed; a CA Issuer signs with it.
				ca := find(t, objs, "Certificate", "sluice-webhook-ca")
				caSpec, _, _ := unstructured.NestedMap(ca.Object, "spec")
				caIssuer, _, _ := unstructured.NestedStringMap(ca.Object, "spec", "issuerRef")
				rotation, _, _ := unstructured.NestedString(ca.Object, "spec", "privateKey", "rotationPolicy")
				if caSpec["isCA"] != true || caIssuer["name"] != "sluice-selfsigned" || rotation != "Never" {
					t.Errorf("the CA Certificate: %v", caSpec)
				}
				if s, _, _ := unstructured.NestedStringMap(find(t, objs, "Issuer", "sluice-selfsigned").Object, "spec", "selfSigned"); s == nil {
					t.Errorf("Issuer sluice-selfsigned is not self-signed")
				}
				if s, _, _ := unstructured.NestedString(find(t, objs, "Issuer", "sluice-webhook-ca").Object, "spec", "ca", "secretName"); s != "sluice-webhook-ca" {
					t.Errorf("Issuer sluice-webhook-ca signs with Secret %q, want the CA Certificate's", s)
				}
			}
		})
	}
}

// TestValuesReachTheManifests checks the values that matter most where
// they land, including in a namespace other than the default.
func TestValuesReachTheManifests(t *testing.T) {
	t.Run("HA off", func(t *testing.T) {
		objs := render(t, parseValues(t, `{controller: {replicas: 1, leaderElect: false}, webhook: {replicas: 1}}`))
		for _, o := range objs {
			if o.GetKind() == "PodDisruptionBudget" {
				t.Errorf("a PodDisruptionBudget with one replica blocks node drains")
			}
		}
		if args := strs(t, container(t, find(t, objs, "Deployment", "sluice-controller"), "controller"), "args"); !slices.Contains(args, "--leader-elect=false") {
			t.Errorf("controller args: %v", args)
		}
	})
	t.Run("HA on", func(t *testing.T) {
		objs := render(t, nil)
		find(t, objs, "PodDisruptionBudget", "sluice-webhook")
		c := container(t, find(t, objs, "Deployment", "sluice-webhook"), "webhook")
		if _, ok, _ := unstructured.NestedString(c, "resources", "limits", "cpu"); ok {
			t.Errorf("the webhook has a CPU limit")
		}
		if p, _, _ := unstructured.NestedString(c, "readinessProbe", "httpGet", "path"); p != "/readyz" {
			t.Errorf("webhook readiness probe path %q", p)
		}
		tsc, _, _ := unstructured.NestedSlice(find(t, objs, "Deployment", "sluice-webhook").Object, "spec", "template", "spec", "topologySpreadConstraints")
		if len(tsc) == 0 {
			t.Errorf("the webhook's replicas are not spread")
		}
		if args := strs(t, container(t, find(t, objs, "Deployment", "sluice-controller"), "controller"), "args"); !slices.Contains(args, "--leader-elect=true") {
			t.Errorf("controller args: %v", args)
		}
	})
	t.Run("the controller's image for operation pods", func(t *testing.T) {
		for values, want := range map[string]string{
			`{image: {repository: registry.example.com/platform/sluice, tag: v9.8.7}}`:                                                                       "registry.example.com/platform/sluice:v9.8.7",
			`{image: {repository: registry.example.com/platform/sluice, digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}`: "registry.example.com/platform/sluice@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		} {
			objs := render(t, parseValues(t, values))
			c := container(t, find(t, objs, "Deployment", "sluice-controller"), "controller")
			image, _, _ := unstructured.NestedString(c, "image")
			if args := strs(t, c, "args"); image != want || !slices.Contains(args, "--sluice-image="+want) {
				t.Errorf("%s: the controller runs %s with args %v, want --sluice-image=%s (its own image)", values, image, args, want)
			}
		}
	})
	t.Run("another namespace", func(t *testing.T) {
		rel, err := dryRun(loadChart(t), parseValues(t, `{webhook: {excludeNamespaces: [monitoring], policyNamespaces: [platform]}}`), "data-platform")
		if err != nil {
			t.Fatal(err)
		}
		objs := objects(t, rel.Manifest)
		for _, o := range objs {
			if ns := o.GetNamespace(); ns != "" && ns != "data-platform" && !(ns == "platform" && strings.HasSuffix(o.GetName(), "-policies")) {
				t.Errorf("%s %s is in namespace %s", o.GetKind(), o.GetName(), ns)
			}
		}
		for _, k := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
			for _, o := range objs {
				if o.GetKind() != k {
					continue
				}
				for _, ex := range excluded(t, o) {
					for _, ns := range []string{"kube-system", "data-platform", "monitoring"} {
						if !slices.Contains(ex, ns) {
							t.Errorf("%s does not exclude %s: %v", k, ns, ex)
						}
					}
				}
			}
		}
		args := strs(t, container(t, find(t, objs, "Deployment", "sluice-webhook"), "webhook"), "args")
		if !slices.Contains(args, "--policy-namespaces=data-platform,platform") {
			t.Errorf("webhook args: %v", args)
		}
		find(t, objs, "Role", "sluice-webhook-policies") // in both namespaces
		var policyRoles int
		for _, o := range objs {
			if o.GetKind() == "Role" && o.GetName() == "sluice-webhook-policies" {
				policyRoles++
			}
		}
		if policyRoles != 2 {
			t.Errorf("%d policy Roles, want one in each policy namespace", policyRoles)
		}
	})
	t.Run("policies", func(t *testing.T) {
		objs := render(t, parseValues(t, `{policies: {config: {mutating: {affinity: {allDatasetPods: true}}}}}`))
		cm := find(t, objs, "ConfigMap", "sluice-policies")
		if cm.GetLabels()["policy.sluice.io/bundle"] != "true" {
			t.Errorf("policy ConfigMap labels: %v", cm.GetLabels())
		}
		data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
		if !strings.Contains(data["platform.yaml"], "allDatasetPods: true") {
			t.Errorf("policy data: %v", data)
		}
	})
	t.Run("quoted, never spliced", func(t *testing.T) {
		// A value that would break out of its YAML scalar if spliced.
		objs := render(t, parseValues(t, `{controller: {extraArgs: ["--x=a\" ]\n  evil: true"]}, commonLabels: {"a": "b: c"}}`))
		args := strs(t, container(t, find(t, objs, "Deployment", "sluice-controller"), "controller"), "args")
		if args[len(args)-1] != "--x=a\" ]\n  evil: true" {
			t.Errorf("extraArgs were not kept as one string: %q", args)
		}
	})
}

// TestReleaseFitsInASecret encodes the default release as Helm's secrets
// storage driver does (JSON, gzip, base64) and checks that it stays well
// under the 1 MiB object limit: the chart carries the CRDs, which is why
// crds/ holds them as compact JSON.
func TestReleaseFitsInASecret(t *testing.T) {
	rel, err := dryRun(loadChart(t), nil, namespace)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(rel)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(js)
	_ = w.Close()
	size := base64.StdEncoding.EncodedLen(buf.Len())
	const limit, margin = 1 << 20, 200 << 10
	t.Logf("release record: %d bytes (limit %d)", size, limit)
	if size > limit-margin {
		t.Errorf("the release record takes %d bytes, within %d of the %d-byte limit of a Secret", size, margin, limit)
	}
}
