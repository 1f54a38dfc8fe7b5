package chart_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"
	authorizationv1 "k8s.io/api/authorization/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/tests/support/simcluster"
)

// TestInstallIntoSimulatedCluster installs the chart with the Helm SDK, as
// `helm install --wait` does, into a simulated cluster: the real
// kube-apiserver validates every object (the CRDs from crds/ included: the
// ones the control plane started with are deleted first), the real
// controller-manager and scheduler create and place the Pods, and kwok runs
// them to Ready on fake nodes. Then it checks the RBAC with the real
// authorizer, runs the webhook as the installed Deployment would, as its
// ServiceAccount, until it is ready (self-managed: it filled the Secret and
// injected the CA into both configurations), then the controller alike
// until its controllers run (its lease won, its caches synced), scraping
// each one's secure metrics as a bound ServiceAccount, upgrades as docs/install.md
// says (CRDs applied server-side, then helm upgrade; the certificate and
// caBundles the webhook wrote survive), and uninstalls (the CRDs stay). The
// second install is in cert-manager mode, with cert-manager's own controller
// and cainjector running (tests/support/certmanager): they issue the chart's
// CA and serving certificate and inject the CA into both installed
// configurations; the Secrets they wrote outlive the release. The webhook
// serving in that mode is tested in tests/webhookcerts (the webhook cannot run
// twice in one process: controller names are unique per process).
func TestInstallIntoSimulatedCluster(t *testing.T) {
	t.Parallel() // its own simulated cluster: runs beside the other cluster tests
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	c, err := simcluster.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cluster logs:\n%s", c.Logs(20))
		}
		if err := c.Stop(); err != nil {
			t.Logf("stopping the cluster: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	if _, err := c.AddNodes(ctx, "kwok-node", 3, 110, map[string]string{"topology.kubernetes.io/zone": "zone-a"}); err != nil {
		t.Fatal(err)
	}
	removeCRDs(ctx, t, c.Client, "data.fluid.io")

	t.Run("self-managed", func(t *testing.T) {
		h := newHelm(t, c.Kubeconfig, "sluice-system")
		rel := h.install(ctx, t, nil)
		checkObjects(ctx, t, c.Client, rel, true)
		checkCRDsEstablished(ctx, t, c.Client)
		checkAccess(ctx, t, c.Client)
		wrote := runInstalledWebhook(ctx, t, c, h.namespace)
		runInstalledController(ctx, t, c, h.namespace)
		applyShownCRDs(ctx, t, c.Client) // the upgrade's first step
		upgradeKeepsWhatTheWebhookWrote(ctx, t, c.Client, h, wrote)
		h.uninstall(t)
		checkObjects(ctx, t, c.Client, rel, false)
		checkCRDsEstablished(ctx, t, c.Client) // crds/ are never deleted
	})
	t.Run("cert-manager", func(t *testing.T) {
		cm := startCertManager(t, c)
		h := newHelm(t, c.Kubeconfig, "sluice-cm")
		rel := h.install(ctx, t, parseValues(t, `certManager: {enabled: true}`))
		checkObjects(ctx, t, c.Client, rel, true)
		checkCertManagerAccess(ctx, t, c.Client, h.namespace)
		secrets := checkIssuedAndInjected(ctx, t, c.Client, cm, h.namespace)
		h.uninstall(t)
		checkObjects(ctx, t, c.Client, rel, false)
		checkSecretsKept(ctx, t, c.Client, h.namespace, secrets)
	})
}

type helmClient struct {
	cfg       *action.Configuration
	namespace string
}

func newHelm(t *testing.T, kubeconfig string, ns string) *helmClient {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Namespace = &kubeconfig, &ns
	cfg := &action.Configuration{}
	// The release record in a Secret, as the Helm CLI keeps it (this also
	// proves the record fits in one).
	if err := cfg.Init(flags, ns, "secret", t.Logf); err != nil {
		t.Fatal(err)
	}
	return &helmClient{cfg: cfg, namespace: ns}
}

func (h *helmClient) install(ctx context.Context, t *testing.T, vals map[string]any) *release.Release {
	t.Helper()
	in := action.NewInstall(h.cfg)
	in.ReleaseName, in.Namespace, in.CreateNamespace = releaseName, h.namespace, true
	in.Wait, in.Timeout = true, 4*time.Minute
	start := time.Now()
	rel, err := in.RunWithContext(ctx, loadChart(t), vals)
	if err != nil {
		t.Fatalf("helm install: %v", err)
	}
	t.Logf("installed %s in %s: every Deployment and the DaemonSet ready after %s", rel.Name, h.namespace, time.Since(start).Round(time.Second))
	return rel
}

func (h *helmClient) uninstall(t *testing.T) {
	t.Helper()
	un := action.NewUninstall(h.cfg)
	un.Wait, un.Timeout = true, 2*time.Minute
	if _, err := un.Run(releaseName); err != nil {
		t.Fatalf("helm uninstall: %v", err)
	}
}

// checkObjects checks that every object of the release exists (and that
// its workloads are ready), or, with present false, that none is left.
func checkObjects(ctx context.Context, t *testing.T, c client.Client, rel *release.Release, present bool) {
	t.Helper()
	objs := objects(t, rel.Manifest)
	if len(objs) < 20 {
		t.Fatalf("only %d objects in the release", len(objs))
	}
	for _, o := range objs {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(o.GroupVersionKind())
		err := c.Get(ctx, client.ObjectKeyFromObject(o), live)
		switch {
		case present && err != nil:
			t.Errorf("%s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		case !present && !apierrors.IsNotFound(err):
			t.Errorf("%s %s/%s is still there after uninstall (%v)", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		case present:
			checkReady(ctx, t, c, live)
		}
	}
}

// checkReady checks a workload's status: every replica ready (kwok ran
// the Pods), on every node for the DaemonSet. Helm's wait can end before
// the DaemonSet controller counts a node that became ready late (it saw
// "2 of 2" on 3 nodes), so the status is polled for a while first.
func checkReady(ctx context.Context, t *testing.T, c client.Client, o *unstructured.Unstructured) {
	t.Helper()
	var notReady string
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			return false, err
		}
		notReady = readiness(o)
		return notReady == "", nil
	})
	if err != nil {
		t.Errorf("%s (%v)", notReady, err)
	}
}

// readiness says what is not ready about a workload, "" when nothing is.
func readiness(o *unstructured.Unstructured) string {
	n := func(f ...string) int64 { v, _, _ := unstructured.NestedInt64(o.Object, f...); return v }
	switch o.GetKind() {
	case "Deployment":
		if want, got := n("spec", "replicas"), n("status", "readyReplicas"); want == 0 || got != want {
			return fmt.Sprintf("Deployment %s: %d of %d replicas ready", o.GetName(), got, want)
		}
	case "DaemonSet":
		if want, got := n("status", "desiredNumberScheduled"), n("status", "numberReady"); want != 3 || got != want {
			return fmt.Sprintf("DaemonSet %s: %d of %d ready (3 nodes)", o.GetName(), got, want)
		}
	}
	return ""
}

func removeCRDs(ctx context.Context, t *testing.T, c client.Client, group string) {
	t.Helper()
	list := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := c.List(ctx, list); err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		if list.Items[i].Spec.Group == group {
			if err := c.Delete(ctx, &list.Items[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Three minutes: on a loaded machine the API server's CRD cleanup took
	// over one (a clean-clone CI run, 2026-12-01).
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := c.List(ctx, list); err != nil {
			return false, err
		}
		for _, crd := range list.Items {
			if crd.Spec.Group == group {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the control plane's %s CRDs were not deleted: %v", group, err)
	}
}

// checkCRDsEstablished checks that the chart's CRDs are served.
func checkCRDsEstablished(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	for _, f := range loadChart(t).CRDObjects() {
		name := strings.TrimSuffix(strings.TrimPrefix(f.Name, "crds/data.fluid.io_"), ".json") + ".data.fluid.io"
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			t.Errorf("CRD %s: %v", name, err)
			continue
		}
		established := false
		for _, cond := range crd.Status.Conditions {
			established = established || (cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue)
		}
		if !established {
			t.Errorf("CRD %s is not established", name)
		}
	}
}

// checkAccess asks the real authorizer what each component's
// ServiceAccount may do: what it needs, and not more.
func checkAccess(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	type attr = authorizationv1.ResourceAttributes
	for _, tc := range []struct {
		sa    string
		attr  attr
		allow bool
	}{
		{"controller", attr{Verb: "update", Group: "data.fluid.io", Resource: "datasets", Subresource: "status", Namespace: "team-a"}, true},
		{"controller", attr{Verb: "create", Group: "apps", Resource: "statefulsets", Namespace: "team-a"}, true},
		{"controller", attr{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: "sluice-system"}, true},
		{"controller", attr{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "sluice-system", Name: "sluice-controller.data.fluid.io"}, true},
		{"controller", attr{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "sluice-system", Name: "someone-elses"}, false},
		{"controller", attr{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: "team-a"}, false},
		{"controller", attr{Verb: "create", Resource: "secrets", Namespace: "team-a"}, true},
		{"controller", attr{Verb: "watch", Resource: "secrets", Namespace: "team-a"}, false},
		{"controller", attr{Verb: "patch", Resource: "secrets", Namespace: "team-a"}, false},
		{"controller", attr{Verb: "patch", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "sluice-mutating-webhook"}, false},
		{"controller", attr{Verb: "create", Resource: "pods", Namespace: "team-a"}, false},
		// FUSE records: written in the release namespace only, read there by the webhook.
		{"controller", attr{Verb: "create", Resource: "podtemplates", Namespace: "sluice-system"}, true},
		{"controller", attr{Verb: "update", Resource: "podtemplates", Namespace: "team-a"}, false},
		{"webhook", attr{Verb: "watch", Resource: "podtemplates", Namespace: "sluice-system"}, true},
		{"webhook", attr{Verb: "watch", Resource: "podtemplates", Namespace: "team-a"}, false},
		{"webhook", attr{Verb: "create", Resource: "podtemplates", Namespace: "sluice-system"}, false},
		{"webhook", attr{Verb: "list", Group: "data.fluid.io", Resource: "dataloads", Namespace: "team-a"}, true},
		{"webhook", attr{Verb: "watch", Group: "data.fluid.io", Resource: "thinruntimeprofiles"}, true}, // the thin-override guard reads profiles
		{"webhook", attr{Verb: "update", Group: "data.fluid.io", Resource: "datasets", Subresource: "status", Namespace: "team-a"}, true},
		{"webhook", attr{Verb: "update", Group: "data.fluid.io", Resource: "datasets", Namespace: "team-a"}, false},
		{"webhook", attr{Verb: "patch", Resource: "configmaps", Namespace: "sluice-system", Name: "sluice-policies"}, true},
		{"webhook", attr{Verb: "patch", Resource: "configmaps", Namespace: "team-a", Name: "x"}, false},
		{"webhook", attr{Verb: "update", Resource: "secrets", Namespace: "sluice-system", Name: "sluice-webhook-cert"}, true},
		{"webhook", attr{Verb: "get", Resource: "secrets", Namespace: "sluice-system", Name: "sh.helm.release.v1.sluice.v1"}, false},
		{"webhook", attr{Verb: "update", Resource: "secrets", Namespace: "sluice-system", Name: "sh.helm.release.v1.sluice.v1"}, false},
		{"webhook", attr{Verb: "create", Resource: "secrets", Namespace: "sluice-system"}, false},
		// cert-controller's cache of the release's namespace.
		{"webhook", attr{Verb: "watch", Resource: "secrets", Namespace: "sluice-system"}, true},
		{"webhook", attr{Verb: "list", Resource: "secrets", Namespace: "team-a"}, false},
		{"webhook", attr{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "sluice-mutating-webhook"}, true},
		{"webhook", attr{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations", Name: "sluice-validating-webhook"}, true},
		{"webhook", attr{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations", Name: "someone-elses"}, false},
		{"webhook", attr{Verb: "patch", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "sluice-mutating-webhook"}, false},
		{"csi", attr{Verb: "patch", Resource: "nodes", Name: "kwok-node-0"}, true},
		{"csi", attr{Verb: "get", Group: "apps", Resource: "daemonsets", Namespace: "team-a"}, true},
		{"csi", attr{Verb: "get", Resource: "secrets", Namespace: "team-a"}, false},
		{"csi", attr{Verb: "delete", Resource: "nodes", Name: "kwok-node-0"}, false},
	} {
		a := tc.attr
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               fmt.Sprintf("system:serviceaccount:sluice-system:sluice-%s", tc.sa),
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:sluice-system", "system:authenticated"},
			ResourceAttributes: &a,
		}}
		if err := c.Create(ctx, sar); err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed != tc.allow {
			t.Errorf("%s may %s %s/%s %s/%s: %v, want %v (%s)", tc.sa, a.Verb, a.Resource, a.Subresource, a.Namespace, a.Name,
				sar.Status.Allowed, tc.allow, sar.Status.Reason)
		}
	}
}

// upgradeKeepsWhatTheWebhookWrote upgrades the release with changed values
// and checks that Helm left alone what the webhook wrote: the Secret's
// certificate and both configurations' caBundles.
func upgradeKeepsWhatTheWebhookWrote(ctx context.Context, t *testing.T, c client.Client, h *helmClient, wrote webhookWrote) {
	t.Helper()
	up := action.NewUpgrade(h.cfg)
	up.Namespace, up.Wait, up.Timeout = h.namespace, true, 4*time.Minute
	vals := parseValues(t, `webhook: {replicas: 3, mutating: {labelledPods: {timeoutSeconds: 5}}}`)
	if _, err := up.RunWithContext(ctx, releaseName, loadChart(t), vals); err != nil {
		t.Fatalf("helm upgrade: %v", err)
	}
	after := readWebhookWrote(ctx, t, c, h.namespace)
	if !maps.EqualFunc(after.secret, wrote.secret, bytes.Equal) {
		t.Errorf("the upgrade changed the certificate Secret's data")
	}
	if !maps.EqualFunc(after.caBundles, wrote.caBundles, bytes.Equal) {
		t.Errorf("the upgrade changed the caBundles")
	}
	o := getCluster(ctx, t, c, "MutatingWebhookConfiguration")
	whs, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
	for _, w := range whs {
		w := w.(map[string]any)
		if w["name"] == "labelled-pods.mutating.sluice.io" && w["timeoutSeconds"] != int64(5) {
			t.Errorf("the upgrade did not apply the new timeout: %v", w["timeoutSeconds"])
		}
	}
	dep := &unstructured.Unstructured{}
	dep.SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err := c.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: "sluice-webhook"}, dep); err != nil {
		t.Fatal(err)
	}
	checkReady(ctx, t, c, dep)
}

// checkCertManagerAccess checks the webhook's access in cert-manager mode:
// its Certificate, and no Secret (the kubelet mounts it).
func checkCertManagerAccess(ctx context.Context, t *testing.T, c client.Client, ns string) {
	t.Helper()
	type attr = authorizationv1.ResourceAttributes
	for _, tc := range []struct {
		attr  attr
		allow bool
	}{
		{attr{Verb: "get", Group: "cert-manager.io", Resource: "certificates", Namespace: ns, Name: "sluice-webhook"}, true},
		{attr{Verb: "watch", Group: "cert-manager.io", Resource: "certificates", Namespace: ns, Name: "sluice-webhook"}, true},
		{attr{Verb: "get", Group: "cert-manager.io", Resource: "certificates", Namespace: ns, Name: "another"}, false},
		{attr{Verb: "get", Resource: "secrets", Namespace: ns, Name: "sluice-webhook-cert"}, false},
		{attr{Verb: "list", Resource: "secrets", Namespace: ns}, false},
		{attr{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "sluice-mutating-webhook"}, false},
	} {
		a := tc.attr
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + ns + ":sluice-webhook",
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
			ResourceAttributes: &a,
		}}
		if err := c.Create(ctx, sar); err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed != tc.allow {
			t.Errorf("cert-manager mode: the webhook may %s %s %s/%s: %v, want %v (%s)", a.Verb, a.Resource, a.Namespace, a.Name, sar.Status.Allowed, tc.allow, sar.Status.Reason)
		}
	}
}

func getCluster(ctx context.Context, t *testing.T, c client.Client, kind string) *unstructured.Unstructured {
	t.Helper()
	name := map[string]string{"MutatingWebhookConfiguration": "sluice-mutating-webhook", "ValidatingWebhookConfiguration": "sluice-validating-webhook"}[kind]
	o := &unstructured.Unstructured{}
	o.SetGroupVersionKind(schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: kind})
	if err := c.Get(ctx, client.ObjectKey{Name: name}, o); err != nil {
		t.Fatal(err)
	}
	return o
}
