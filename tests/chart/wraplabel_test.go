package chart_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestOnlyTheControllerMarksWrappedPVCs (issue 30, issue 32 point 6):
// with the chart's policies installed in a real API server, a tenant who
// may write PVCs in its namespace can neither create a PVC carrying the
// wrap mark (dataset.sluice.io/wrapped-by) nor add it to, or change it
// on, a PVC, and is told so by the wrap-label policy; it may still remove
// it and change its PVCs' other labels. The controller's ServiceAccount
// may add and remove the mark on a tenant's PVC (controller-writes), but
// change nothing else of it.
func TestOnlyTheControllerMarksWrappedPVCs(t *testing.T) {
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
	tenantRole := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "pvcs"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"persistentvolumeclaims"}, Verbs: []string{"*"}}}}
	tenantBinding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "pvcs"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pvcs"},
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

	claim := func(name string, labels map[string]string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, Labels: labels},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	}
	patch := func(c client.Client, name, p string) error {
		return c.Patch(ctx, claim(name, nil), client.RawPatch(types.MergePatchType, []byte(p)))
	}
	const mark = datav1alpha1.LabelWrappedByDataset
	forged := claim("forged", map[string]string{mark: "secret"})
	// The policies apply once the API server has loaded them.
	deadline := time.Now().Add(30 * time.Second)
	for tenant.Create(ctx, forged.DeepCopy(), client.DryRunAll) == nil {
		if time.Now().After(deadline) {
			t.Fatal("a tenant's PVC carrying the wrap mark is still allowed 30 s after the policies were installed")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := tenant.Create(ctx, claim("nas-data", map[string]string{"app": "x"})); err != nil {
		t.Fatal(err)
	}
	// controller-writes loads in its own time: wait until it refuses the
	// controller a change of a tenant PVC's other labels.
	for patch(controller, "nas-data", `{"metadata":{"labels":{"app":"y"}}}`) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the controller may still relabel a tenant's PVC 30 s after the policies were installed")
		}
		time.Sleep(200 * time.Millisecond)
	}

	refused := func(what, rule string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), rule) {
			t.Errorf("%s: %v, want refused (%q)", what, err, rule)
		}
	}
	allowed := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v, want allowed", what, err)
		}
	}
	onlyController := "only the Sluice controller sets the label dataset.sluice.io/wrapped-by"
	refused("the tenant creates a PVC carrying the wrap mark", onlyController, tenant.Create(ctx, forged))
	refused("the tenant marks its PVC", onlyController, patch(tenant, "nas-data", `{"metadata":{"labels":{"`+mark+`":"nas"}}}`))
	allowed("the tenant relabels its PVC", patch(tenant, "nas-data", `{"metadata":{"labels":{"app":"z"}}}`))
	allowed("the controller marks the tenant's PVC", patch(controller, "nas-data", `{"metadata":{"labels":{"`+mark+`":"nas"}}}`))
	refused("the tenant changes the mark", onlyController, patch(tenant, "nas-data", `{"metadata":{"labels":{"`+mark+`":"secret"}}}`))
	allowed("the tenant changes another label of a marked PVC", patch(tenant, "nas-data", `{"metadata":{"labels":{"app":"w"}}}`))
	refused("the controller changes another label with the mark", "may write only objects it manages",
		patch(controller, "nas-data", `{"metadata":{"labels":{"`+mark+`":"other","app":"v"}}}`))
	refused("the controller annotates the tenant's PVC", "may write only objects it manages",
		patch(controller, "nas-data", `{"metadata":{"annotations":{"a":"b"}}}`))
	allowed("the controller removes the mark", patch(controller, "nas-data", `{"metadata":{"labels":{"`+mark+`":null}}}`))
	allowed("the controller marks the PVC again", patch(controller, "nas-data", `{"metadata":{"labels":{"`+mark+`":"nas"}}}`))
	allowed("the tenant removes the mark", patch(tenant, "nas-data", `{"metadata":{"labels":{"`+mark+`":null}}}`))
	refused("the controller deletes the tenant's PVC", "may change or delete only objects it manages", controller.Delete(ctx, claim("nas-data", nil)))
}
