package webhook_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestTenantDaemonSetsAreCachedSmall is audit N9's proof for the
// webhook's DaemonSet cache, through the webhook's cache options against
// the real API server: a tenant's DaemonSet is not cached at all unless it
// carries fluid.io/dataset (as every engine chart labels its FUSE
// DaemonSet); one that carries it is cached with its identity alone, or,
// named <runtime>-fuse, with its pod template's spec too (what a FUSE
// sidecar is built from), and never with its annotations, labels, status
// or template metadata, whatever its author put in them.
func TestTenantDaemonSetsAreCachedSmall(t *testing.T) {
	ns := env.Namespace(t)
	blob := strings.Repeat("a", 200<<10)
	daemonSet := func(name string, labels map[string]string) *appsv1.DaemonSet {
		sel := map[string]string{"app": name}
		return &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, Annotations: map[string]string{"example.com/blob": blob}},
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: sel, Annotations: map[string]string{"example.com/blob": blob[:50<<10]}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/app",
					Env: []corev1.EnvVar{{Name: "BLOB", Value: blob[:10<<10]}}}}}}},
		}
	}
	unlabelled := daemonSet("logs", nil)
	labelled := daemonSet("tenant", map[string]string{datav1alpha1.LabelDataset: "x", "team.example.com/owner": "o"})
	fuse := daemonSet("data"+datav1alpha1.FuseDaemonSetSuffix, map[string]string{datav1alpha1.LabelDataset: ns + "-data"})
	for _, d := range []*appsv1.DaemonSet{unlabelled, labelled, fuse} {
		if err := env.Client.Create(ctxT(t), d); err != nil {
			t.Fatal(err)
		}
	}

	ctx, c := webhookCache(t, &appsv1.DaemonSet{})
	got := &appsv1.DaemonSet{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(unlabelled), got); !apierrors.IsNotFound(err) {
		t.Fatalf("a DaemonSet without fluid.io/dataset is cached (err %v)", err)
	}
	small := func(d *appsv1.DaemonSet) *appsv1.DaemonSet {
		t.Helper()
		got := &appsv1.DaemonSet{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(d), got); err != nil {
			t.Fatal(err)
		}
		if len(got.Annotations) != 0 || len(got.ManagedFields) != 0 || len(got.Labels) != 1 || got.Spec.Selector != nil ||
			got.Spec.Template.Labels != nil || got.Spec.Template.Annotations != nil {
			t.Fatalf("%s is cached with what the webhook does not read: labels %v, %d annotations, %d managedFields, selector %v, template metadata %+v",
				d.Name, got.Labels, len(got.Annotations), len(got.ManagedFields), got.Spec.Selector, got.Spec.Template.ObjectMeta)
		}
		if got.UID == "" || got.ResourceVersion == "" {
			t.Fatalf("%s lost its identity in the cache: %+v", d.Name, got.ObjectMeta)
		}
		return got
	}
	if got := small(labelled); len(got.Spec.Template.Spec.Containers) != 0 {
		t.Fatalf("a labelled DaemonSet that is no FUSE DaemonSet is cached with its pod template: %+v", got.Spec.Template.Spec)
	}
	if got := small(fuse); len(got.Spec.Template.Spec.Containers) != 1 || got.Spec.Template.Spec.Containers[0].Image != "registry.example.com/app" {
		t.Fatalf("a FUSE DaemonSet is cached without its pod template's spec: %+v", got.Spec.Template.Spec)
	}
}
