package chart_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/reference"
	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
	"github.com/sluice-data/sluice/engines/workloads/ufsmeta"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestGuardConfinesTheControllerAndTheCSIPlugin (audit M7): with the
// chart's RBAC and its ValidatingAdmissionPolicies installed in a real API
// server, the controller's ServiceAccount may write the objects Sluice
// manages but no other object its ClusterRole would allow: none in
// kube-system, no Secret but Helm's release records (a service-account
// token Secret is refused even labelled as an engine's), no object it
// did not create (not even by labelling it), no Job but Sluice's (a
// Dataset's metadata Job is allowed), no Pod but by the apps-done
// annotation of a Pod it injected; on nodes it may change only
// Sluice's labels. The CSI plugin's ServiceAccount may change only FUSE
// labels, and only on the node its token names.
func TestGuardConfinesTheControllerAndTheCSIPlugin(t *testing.T) {
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
	as := func(sa string, extra map[string][]string) client.Client {
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + namespace + ":" + sa,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}, Extra: extra}
		c, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	controller := as("sluice-controller", nil)
	csi := as("sluice-csi", map[string][]string{"authentication.kubernetes.io/node-name": {"node-a"}})

	// As Helm leaves an engine chart's object: it relabels managed-by.
	managed := map[string]string{"app.kubernetes.io/managed-by": "Helm", "fluid.io/dataset": "team-a-d"}
	cm := func(ns, name string, labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	}
	injected := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "injected", Labels: map[string]string{"done.sidecar.fluid.io/inject": "true"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}}}
	plain := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "plain"}, Spec: injected.Spec}
	for _, p := range []*corev1.Pod{injected, plain} {
		if err := admin.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	podPatch := func(p *corev1.Pod, patch string, opts ...client.PatchOption) error {
		return controller.Patch(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}, client.RawPatch(types.MergePatchType, []byte(patch)), opts...)
	}
	for _, name := range []string{"node-a", "node-b"} {
		if err := admin.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	label := func(c client.Client, node, patch string, opts ...client.PatchOption) error {
		return c.Patch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}, client.RawPatch(types.MergePatchType, []byte(patch)), opts...)
	}
	// Each policy applies once the API server has loaded it, each in its
	// own time: wait until a write each one refuses is refused.
	probes := []struct {
		what  string
		write func() error
	}{
		{"the controller writes an unlabelled ConfigMap", func() error { return controller.Create(ctx, cm("team-a", "probe", nil), client.DryRunAll) }},
		{"the controller annotates a Pod it did not inject", func() error {
			return podPatch(plain, `{"metadata":{"annotations":{"sidecar.sluice.io/apps-done":"true"}}}`, client.DryRunAll)
		}},
		{"the controller sets another node label", func() error {
			return label(controller, "node-b", `{"metadata":{"labels":{"foo":"bar"}}}`, client.DryRunAll)
		}},
		{"the CSI plugin labels another node", func() error {
			return label(csi, "node-b", `{"metadata":{"labels":{"fluid.io/f-team-a-d":"true"}}}`, client.DryRunAll)
		}},
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, p := range probes {
		for p.write() == nil {
			if time.Now().After(deadline) {
				t.Fatalf("%s: still allowed 30 s after the policies were installed", p.what)
			}
			time.Sleep(200 * time.Millisecond)
		}
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
	onlyManaged := "may write only objects it manages"
	allowed("the controller creates a ConfigMap of an engine chart", controller.Create(ctx, cm("team-a", "engine", managed)))
	refused("the controller creates an unlabelled ConfigMap", onlyManaged, controller.Create(ctx, cm("team-a", "other", nil)))
	refused("the controller creates another Helm chart's ConfigMap", onlyManaged, controller.Create(ctx, cm("team-a", "app", map[string]string{"app.kubernetes.io/managed-by": "Helm"})))
	allowed("the controller creates a reference dataset's copy of a FUSE ConfigMap (controller/reference)", controller.Create(ctx, cm("team-a", "ref-phy-config",
		reference.CopyLabels(&datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "ref"}}))))
	allowed("the controller creates a data operation's ConfigMap", controller.Create(ctx, cm("team-a", "op", map[string]string{"app.kubernetes.io/managed-by": "Helm", "dataop.sluice.io/kind": "DataProcess"})))
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "evil", Labels: managed},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "evil"}}}}}}
	refused("the controller creates a DaemonSet in kube-system", "may not write daemonsets in namespace kube-system", controller.Create(ctx, ds))
	token := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "token", Labels: managed,
		Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}}, Type: corev1.SecretTypeServiceAccountToken}
	refused("the controller creates a service-account token Secret", onlyManaged, controller.Create(ctx, token))
	record := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "sh.helm.release.v1.d.v1", Labels: map[string]string{"owner": "helm", "name": "d"}},
		Type: "helm.sh/release.v1"}
	allowed("the controller creates a Helm release record", controller.Create(ctx, record))
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "d", Labels: map[string]string{"dataset.sluice.io/name": "d"}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	allowed("the controller creates a Dataset's PVC", controller.Create(ctx, pvc))
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "team-a-d", Labels: map[string]string{"dataset.sluice.io/name": "d"}},
		Spec: corev1.PersistentVolumeSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany},
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "fuse.csi.fluid.io", VolumeHandle: "team-a-d"}}}}
	allowed("the controller creates a Dataset's PV", controller.Create(ctx, pv))
	allowed("the controller deletes a Dataset's PV", controller.Delete(ctx, pv))
	pv.Labels, pv.ResourceVersion = nil, ""
	refused("the controller creates another PV", onlyManaged, controller.Create(ctx, pv))

	// A deleted runtime's cache cleanup Job, as charts/cachecleanup renders
	// it, is Sluice's; the same Job without those labels is not.
	cleanup := cleanupJob(t)
	allowed("the controller creates a cache cleanup Job", controller.Create(ctx, cleanup))
	resumed := cleanup.DeepCopy()
	resumed.Spec.Suspend = ptr.To(false)
	allowed("the controller resumes a cache cleanup Job", controller.Update(ctx, resumed))
	allowed("the controller deletes a cache cleanup Job", controller.Delete(ctx, resumed))
	stray := cleanupJob(t)
	// (An empty metadata.labels would be defaulted from the template's.)
	stray.Name, stray.Labels, stray.Spec.Template.Labels = "stray", nil, nil
	refused("the controller creates an unlabelled Job mounting a host directory", onlyManaged, controller.Create(ctx, stray))

	// The metadata Job that counts a Dataset's files, as the controller
	// builds it (ufsmeta.Job), and a Job without its labels.
	metaDS := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "d", UID: "ds-uid"}}
	metaJob := ufsmeta.Job(metaDS, metav1.OwnerReference{APIVersion: "data.fluid.io/v1alpha1", Kind: "AlluxioRuntime", Name: "d", UID: "rt-uid"},
		ufsmeta.Options{Image: "ghcr.io/sluice-data/sluice:test", Deadline: time.Hour})
	allowed("the controller creates a Dataset's metadata Job", controller.Create(ctx, metaJob))
	allowed("the controller deletes a Dataset's metadata Job", controller.Delete(ctx, metaJob))
	bare := ufsmeta.Job(metaDS, metaJob.OwnerReferences[0], ufsmeta.Options{Image: "evil"})
	bare.Name, bare.Labels = "other", nil
	refused("the controller creates an unlabelled Job", onlyManaged, controller.Create(ctx, bare))

	theirs := cm("team-a", "theirs", nil)
	if err := admin.Create(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	theirs.Labels = managed
	refused("the controller adopts a ConfigMap by labelling it", "may change or delete only objects it manages", controller.Update(ctx, theirs))
	refused("the controller deletes a ConfigMap it did not create", "may change or delete only objects it manages", controller.Delete(ctx, cm("team-a", "theirs", nil)))
	allowed("the controller deletes an engine's ConfigMap", controller.Delete(ctx, cm("team-a", "engine", nil)))

	allowed("the controller tells an injected Pod's sidecars to stop", podPatch(injected, `{"metadata":{"annotations":{"sidecar.sluice.io/apps-done":"true"}}}`))
	refused("the controller annotates a Pod it did not inject", "only Pods whose FUSE sidecars it injected", podPatch(plain, `{"metadata":{"annotations":{"sidecar.sluice.io/apps-done":"true"}}}`))
	refused("the controller relabels a Pod", "only by its sidecar.sluice.io/apps-done annotation", podPatch(injected, `{"metadata":{"labels":{"app":"x"}}}`))
	refused("the controller sets another annotation", "only by its sidecar.sluice.io/apps-done annotation", podPatch(injected, `{"metadata":{"annotations":{"other":"x"}}}`))
	refused("the controller changes a Pod's image", "only by its sidecar.sluice.io/apps-done annotation", podPatch(injected, `{"spec":{"containers":[{"name":"app","image":"evil"}]}}`))

	allowed("the controller labels a cache node", label(controller, "node-b", `{"metadata":{"labels":{"fluid.io/s-team-a-d":"true","fluid.io/dataset-num":"1","fluid_exclusive":"team-a_d"}}}`))
	refused("the controller sets another label", "may change only node labels fluid.io/* and fluid_exclusive, not foo", label(controller, "node-b", `{"metadata":{"labels":{"foo":"bar"}}}`))
	refused("the controller cordons a node", "labels only", label(controller, "node-b", `{"spec":{"unschedulable":true}}`))
	refused("the controller taints a node", "labels only", label(controller, "node-b", `{"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}}`))
	allowed("the controller removes its labels", label(controller, "node-b", `{"metadata":{"labels":{"fluid.io/s-team-a-d":null}}}`))
	allowed("the CSI plugin labels its node for FUSE", label(csi, "node-a", `{"metadata":{"labels":{"fluid.io/f-team-a-d":"true"}}}`))
	refused("the CSI plugin labels another node", "may label only the node it runs on, not node-b", label(csi, "node-b", `{"metadata":{"labels":{"fluid.io/f-team-a-d":"true"}}}`))
	refused("the CSI plugin sets a cache label", "may change only node labels fluid.io/f-*, not fluid.io/s-team-a-d", label(csi, "node-a", `{"metadata":{"labels":{"fluid.io/s-team-a-d":"true"}}}`))
	refused("the CSI plugin removes a cache label", "may change only node labels fluid.io/f-*", label(csi, "node-b", `{"metadata":{"labels":{"fluid_exclusive":null}}}`))
}

// cleanupJob is the node Job charts/cachecleanup renders for a
// JuiceFSRuntime d in team-a whose worker on node-a cached in /mnt/cache.
func cleanupJob(t *testing.T) *batchv1.Job {
	t.Helper()
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "d"}}
	release := cachecleanup.ReleaseName(rt.Name)
	values, err := cachecleanup.Build(release, cachecleanup.Request{Runtime: rt, Engine: "juicefs",
		Nodes: []cachecleanup.Node{{Name: "node-a", Dirs: []string{"/mnt/cache/.sluice/team-a/d"}, Image: "juicedata/juicefs-fuse:ce-v1.2.1"}}}).Plain()
	if err != nil {
		t.Fatal(err)
	}
	c, err := helm.LoadChart(charts.CacheCleanup)
	if err != nil {
		t.Fatal(err)
	}
	out, err := helm.Render(context.Background(), c, values, release, "team-a")
	if err != nil {
		t.Fatal(err)
	}
	j := &batchv1.Job{}
	if err := yaml.UnmarshalStrict([]byte(strings.TrimPrefix(strings.TrimSpace(out["templates/node-jobs.yaml"]), "---")), j); err != nil {
		t.Fatal(err)
	}
	return j
}
