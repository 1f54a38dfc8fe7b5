package chart_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// webhookPolicy is the ValidatingAdmissionPolicy that confines the
// webhook's updates of its configurations (templates/guard).
const webhookPolicy = "sluice-webhook-cabundle"

// TestGuardLetsTheWebhookChangeOnlyItsCABundles (audit N14): with the
// chart's RBAC, its ValidatingAdmissionPolicies and its two webhook
// configurations installed in a real API server, the webhook's
// ServiceAccount may write a caBundle into every webhook of both
// configurations, as cert-controller does (an update of the whole object,
// again for a CA rollover's two-CA bundle), but an update that changes
// anything else is denied by the policy, naming it: failurePolicy, the
// clientConfig's URL or Service, rules, selectors, timeouts, match
// conditions, a webhook added, removed or moved, the labels or the owner
// references. A cluster administrator may still change them.
func TestGuardLetsTheWebhookChangeOnlyItsCABundles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server")
	}
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := env.Client
	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		t.Fatal(err)
	}
	for _, o := range render(t, parseValues(t, "")) {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
			"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			if err := admin.Create(ctx, o); err != nil {
				t.Fatalf("installing %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + namespace + ":sluice-webhook",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}}
	webhook, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
	if err != nil {
		t.Fatal(err)
	}

	// change reads a configuration afresh, changes it and writes it back
	// as c.
	mutating := func(c client.Client, change func(*admissionregistrationv1.MutatingWebhookConfiguration), opts ...client.UpdateOption) error {
		o := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := admin.Get(ctx, client.ObjectKey{Name: "sluice-mutating-webhook"}, o); err != nil {
			t.Fatal(err)
		}
		change(o)
		return c.Update(ctx, o, opts...)
	}
	validating := func(c client.Client, change func(*admissionregistrationv1.ValidatingWebhookConfiguration)) error {
		o := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := admin.Get(ctx, client.ObjectKey{Name: "sluice-validating-webhook"}, o); err != nil {
			t.Fatal(err)
		}
		change(o)
		return c.Update(ctx, o)
	}
	ignore := func(o *admissionregistrationv1.MutatingWebhookConfiguration) {
		o.Webhooks[0].FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
	}
	// The policy applies once the API server has loaded it.
	deadline := time.Now().Add(30 * time.Second)
	for mutating(webhook, ignore, client.DryRunAll) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the webhook sets failurePolicy Ignore: still allowed 30 s after the policy was installed")
		}
		time.Sleep(200 * time.Millisecond)
	}

	// What cert-controller does (rotator.injectCertToWebhook): the
	// caBundle of every webhook set in the object read, which is updated
	// whole.
	inject := func(kind string, name string, bundle []byte) error {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("admissionregistration.k8s.io/v1")
		u.SetKind(kind)
		if err := webhook.Get(ctx, client.ObjectKey{Name: name}, u); err != nil {
			return err
		}
		hooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
		for i := range hooks {
			if err := unstructured.SetNestedField(hooks[i].(map[string]any), base64.StdEncoding.EncodeToString(bundle), "clientConfig", "caBundle"); err != nil {
				return err
			}
		}
		if err := unstructured.SetNestedSlice(u.Object, hooks, "webhooks"); err != nil {
			return err
		}
		return webhook.Update(ctx, u)
	}
	ca1 := []byte("-----BEGIN CERTIFICATE-----\nY2Ex\n-----END CERTIFICATE-----\n")
	ca2 := []byte("-----BEGIN CERTIFICATE-----\nY2Ey\n-----END CERTIFICATE-----\n")
	for _, bundle := range [][]byte{ca1, append(append([]byte{}, ca1...), ca2...), ca2} {
		for kind, name := range map[string]string{"MutatingWebhookConfiguration": "sluice-mutating-webhook", "ValidatingWebhookConfiguration": "sluice-validating-webhook"} {
			if err := inject(kind, name, bundle); err != nil {
				t.Errorf("the webhook injects a caBundle of %d bytes into %s: %v, want allowed", len(bundle), name, err)
			}
		}
	}
	got := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := admin.Get(ctx, client.ObjectKey{Name: "sluice-mutating-webhook"}, got); err != nil {
		t.Fatal(err)
	}
	for _, w := range got.Webhooks {
		if string(w.ClientConfig.CABundle) != string(ca2) {
			t.Errorf("webhook %s's caBundle is %q after the injections, want the last CA", w.Name, w.ClientConfig.CABundle)
		}
	}

	onlyCABundle := "may change only the caBundle"
	denied := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), webhookPolicy) || !strings.Contains(err.Error(), onlyCABundle) {
			t.Errorf("the webhook %s: %v, want denied by %s (%q)", what, err, webhookPolicy, onlyCABundle)
		}
	}
	type mutatingCfg = admissionregistrationv1.MutatingWebhookConfiguration
	type validatingCfg = admissionregistrationv1.ValidatingWebhookConfiguration
	for _, tc := range []struct {
		what   string
		change func(*mutatingCfg)
	}{
		{"sets failurePolicy Ignore", ignore},
		{"points clientConfig at a URL", func(o *mutatingCfg) {
			o.Webhooks[0].ClientConfig.Service, o.Webhooks[0].ClientConfig.URL = nil, ptr.To("https://attacker.example.com/mutate")
		}},
		{"points clientConfig at another Service", func(o *mutatingCfg) { o.Webhooks[0].ClientConfig.Service.Name = "elsewhere" }},
		{"changes the Service's path", func(o *mutatingCfg) { o.Webhooks[1].ClientConfig.Service.Path = ptr.To("/other") }},
		{"adds a rule", func(o *mutatingCfg) {
			o.Webhooks[0].Rules = append(o.Webhooks[0].Rules, admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}})
		}},
		{"widens a rule to every operation", func(o *mutatingCfg) {
			o.Webhooks[0].Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
		}},
		{"drops the namespaceSelector", func(o *mutatingCfg) { o.Webhooks[0].NamespaceSelector = &metav1.LabelSelector{} }},
		{"changes the objectSelector", func(o *mutatingCfg) {
			o.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"only": "these"}}
		}},
		{"drops the matchConditions", func(o *mutatingCfg) { o.Webhooks[0].MatchConditions = nil }},
		{"changes the timeout", func(o *mutatingCfg) { o.Webhooks[1].TimeoutSeconds = ptr.To(*o.Webhooks[1].TimeoutSeconds + 1) }},
		{"changes the reinvocationPolicy", func(o *mutatingCfg) {
			p := admissionregistrationv1.IfNeededReinvocationPolicy
			if *o.Webhooks[0].ReinvocationPolicy == p {
				p = admissionregistrationv1.NeverReinvocationPolicy
			}
			o.Webhooks[0].ReinvocationPolicy = &p
		}},
		{"adds a webhook", func(o *mutatingCfg) {
			extra := o.Webhooks[0].DeepCopy()
			extra.Name = "everything.example.com"
			o.Webhooks = append(o.Webhooks, *extra)
		}},
		{"removes a webhook", func(o *mutatingCfg) { o.Webhooks = o.Webhooks[1:] }},
		{"reorders the webhooks", func(o *mutatingCfg) { o.Webhooks[0], o.Webhooks[1] = o.Webhooks[1], o.Webhooks[0] }},
		{"renames a webhook", func(o *mutatingCfg) { o.Webhooks[1].Name = "renamed.mutating.sluice.io" }},
		{"adds a label", func(o *mutatingCfg) { o.Labels["extra"] = "x" }},
		{"gives it an owner, so that it is collected with it", func(o *mutatingCfg) {
			o.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "short-lived", UID: "0a0a0a0a-0000-0000-0000-000000000000"}}
		}},
		{"adds a finalizer", func(o *mutatingCfg) { o.Finalizers = append(o.Finalizers, "example.com/hold") }},
	} {
		denied(tc.what+" of the mutating configuration", mutating(webhook, func(o *mutatingCfg) {
			o.Webhooks[0].ClientConfig.CABundle = ca1 // with a caBundle change, as an injection would
			tc.change(o)
		}))
	}
	for _, tc := range []struct {
		what   string
		change func(*validatingCfg)
	}{
		{"sets failurePolicy Ignore", func(o *validatingCfg) { o.Webhooks[0].FailurePolicy = ptr.To(admissionregistrationv1.Ignore) }},
		{"points clientConfig at a URL", func(o *validatingCfg) {
			o.Webhooks[0].ClientConfig.Service, o.Webhooks[0].ClientConfig.URL = nil, ptr.To("https://attacker.example.com/validate")
		}},
		{"drops the rules", func(o *validatingCfg) { o.Webhooks[0].Rules = nil }},
		{"changes the matchPolicy", func(o *validatingCfg) {
			p := admissionregistrationv1.Exact
			if *o.Webhooks[0].MatchPolicy == p {
				p = admissionregistrationv1.Equivalent
			}
			o.Webhooks[0].MatchPolicy = &p
		}},
		{"changes the sideEffects", func(o *validatingCfg) {
			e := admissionregistrationv1.SideEffectClassNoneOnDryRun
			if *o.Webhooks[0].SideEffects == e {
				e = admissionregistrationv1.SideEffectClassNone
			}
			o.Webhooks[0].SideEffects = &e
		}},
		{"changes the admissionReviewVersions", func(o *validatingCfg) { o.Webhooks[0].AdmissionReviewVersions = []string{"v1", "v1beta1"} }},
		{"adds an annotation", func(o *validatingCfg) {
			o.Annotations = map[string]string{"cert-manager.io/inject-ca-from-secret": "kube-system/elsewhere"}
		}},
	} {
		denied(tc.what+" of the validating configuration", validating(webhook, tc.change))
	}
	err = webhook.Delete(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "sluice-validating-webhook"}})
	if err == nil {
		t.Error("the webhook deletes its validating configuration: allowed, want forbidden")
	}

	// The policy confines the webhook only.
	if err := mutating(admin, ignore); err != nil {
		t.Errorf("an administrator sets failurePolicy Ignore: %v, want allowed", err)
	}
}

// TestWebhookGuardComparesEveryField: the policy names each field of
// Kubernetes' webhook types but the caBundle, so a field added to them
// (k8s.io/api) is not left for the webhook to change unseen.
func TestWebhookGuardComparesEveryField(t *testing.T) {
	policy := find(t, render(t, parseValues(t, "")), "ValidatingAdmissionPolicy", webhookPolicy)
	vars, _, _ := unstructured.NestedSlice(policy.Object, "spec", "variables")
	var same string
	for _, v := range vars {
		if v.(map[string]any)["name"] == "same" {
			same = v.(map[string]any)["expression"].(string)
		}
	}
	if same == "" {
		t.Fatalf("the policy has no variable same: %v", vars)
	}
	fields := func(typ reflect.Type) []string {
		var out []string
		for i := range typ.NumField() {
			out = append(out, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
		}
		return out
	}
	want := map[string]bool{}
	for _, typ := range []reflect.Type{reflect.TypeFor[admissionregistrationv1.MutatingWebhook](), reflect.TypeFor[admissionregistrationv1.ValidatingWebhook]()} {
		for _, f := range fields(typ) {
			switch f {
			case "name":
				want["o.name == w.name"] = true
			case "clientConfig":
				for _, c := range fields(reflect.TypeFor[admissionregistrationv1.WebhookClientConfig]()) {
					if c != "caBundle" {
						want[fmt.Sprintf("o.clientConfig.?%s == w.clientConfig.?%s", c, c)] = true
					}
				}
			default:
				want[fmt.Sprintf("o.?%s == w.?%s", f, f)] = true
			}
		}
	}
	for w := range want {
		if !strings.Contains(same, w) {
			t.Errorf("the policy's comparison of webhooks lacks %q:\n%s", w, same)
		}
	}
	if strings.Contains(same, "caBundle") {
		t.Errorf("the policy compares the caBundle, which the webhook must change:\n%s", same)
	}
}
