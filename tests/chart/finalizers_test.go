package chart_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestOnlyTheControllerRemovesSluiceFinalizers (reliability audit N8):
// with the chart's policies installed in a real API server, a tenant
// allowed to update data.fluid.io objects in its namespace cannot remove
// their Sluice finalizers (data.sluice.io/*), not even from an object
// being deleted, and is told so by the finalizers policy; it may still
// change the objects otherwise and remove finalizers that are not
// Sluice's. The controller's ServiceAccount removes them, and so may a
// cluster administrator (group system:masters, guard.finalizerAdmins),
// so that a deletion never waits for a controller that is gone.
func TestOnlyTheControllerRemovesSluiceFinalizers(t *testing.T) {
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
	for _, name := range []string{namespace, "team-a"} {
		if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range render(t, parseValues(t, "")) {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
			if err := admin.Create(ctx, o); err != nil {
				t.Fatalf("installing %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}
	// The tenant may do anything with data.fluid.io objects in team-a.
	tenantRole := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "data"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{datav1alpha1.GroupVersion.Group}, Resources: []string{"*"}, Verbs: []string{"*"}}}}
	tenantBinding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "data"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "data"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "team-a", Name: "tenant"}}}
	for _, o := range []client.Object{tenantRole, tenantBinding} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	as := func(user string, groups ...string) client.Client {
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
		c, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tenant := as("system:serviceaccount:team-a:tenant", "system:serviceaccounts", "system:serviceaccounts:team-a")
	controller := as("system:serviceaccount:"+namespace+":sluice-controller", "system:serviceaccounts", "system:serviceaccounts:"+namespace)
	clusterAdmin := as("alice", "system:masters")

	const theirs = "example.com/hold"
	ds := testobj.Dataset("d", "team-a", testobj.WithMounts("juicefs:///d"))
	ds.Finalizers = []string{"data.sluice.io/dataset", theirs}
	rt := testobj.JuiceFSRuntime("d", "team-a", 1)
	rt.Finalizers = []string{"data.sluice.io/runtime"}
	load := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "warm", Finalizers: []string{"data.sluice.io/operation"}},
		Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "d"}}}
	for _, o := range []client.Object{ds, rt, load} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	finalizers := func(c client.Client, obj client.Object, fs []string, opts ...client.PatchOption) error {
		patch := `{"metadata":{"finalizers":null}}`
		if len(fs) > 0 {
			patch = `{"metadata":{"finalizers":["` + strings.Join(fs, `","`) + `"]}}`
		}
		return c.Patch(ctx, obj.DeepCopyObject().(client.Object), client.RawPatch(types.MergePatchType, []byte(patch)), opts...)
	}
	// The policy applies once the API server has loaded it.
	deadline := time.Now().Add(30 * time.Second)
	for finalizers(tenant, rt, nil, client.DryRunAll) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the tenant's removal of a Sluice finalizer is still allowed 30 s after the policies were installed")
		}
		time.Sleep(200 * time.Millisecond)
	}

	refused := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "sluice-finalizers") || !strings.Contains(err.Error(), "only the Sluice controller removes the finalizer data.sluice.io/") {
			t.Errorf("%s: %v, want refused by the finalizers policy", what, err)
		}
	}
	allowed := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v, want allowed", what, err)
		}
	}
	refused("the tenant removes a runtime's finalizer", finalizers(tenant, rt, nil))
	refused("the tenant removes a data operation's finalizer", finalizers(tenant, load, nil))
	refused("the tenant replaces a Dataset's Sluice finalizer", finalizers(tenant, ds, []string{theirs, "data.sluice.io/other"}))
	allowed("the tenant removes a finalizer that is not Sluice's", finalizers(tenant, ds, []string{"data.sluice.io/dataset"}))
	allowed("the tenant labels a runtime", tenant.Patch(ctx, rt.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"a"}}}`))))

	if err := tenant.Delete(ctx, ds.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	refused("the tenant removes the finalizer of a Dataset being deleted", finalizers(tenant, ds, nil))
	allowed("the controller removes the Dataset's finalizer", finalizers(controller, ds, nil))
	allowed("a cluster administrator removes the runtime's finalizer", finalizers(clusterAdmin, rt, nil))
}
