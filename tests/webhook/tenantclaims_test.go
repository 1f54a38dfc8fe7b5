package webhook_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook"
)

// TestTenantClaimsAreCachedSmall is the audit's N9 proof for the webhook:
// a PVC a tenant labels fluid.io/dataset-id (any tenant may) with 250 KiB
// of annotations and labels of its own is cached, through the webhook's
// cache options against the real API server, with only what the webhook
// reads: its identity, the dataset labels and its volume name; no
// annotation (not even Sluice's created-by, whose value the PVC's author
// chooses and the webhook does not read), no other label, no managedFields. A dataset PVC keeps what
// the webhook needs to recognise it.
func TestTenantClaimsAreCachedSmall(t *testing.T) {
	ns := env.Namespace(t)
	blob := strings.Repeat("a", 250<<10)
	claim := func(name string, labels, annotations map[string]string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, Annotations: annotations},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeName: "pv-" + name,
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
		}
	}
	tenant := claim("tenant", map[string]string{datav1alpha1.LabelDatasetID: "x", "team.example.com/owner": strings.Repeat("o", 63)},
		map[string]string{"example.com/blob": blob[:125<<10], datav1alpha1.AnnotationCreatedBy: blob[:125<<10]})
	dataset := claim("data", map[string]string{datav1alpha1.LabelDatasetID: ns + "-data", datav1alpha1.LabelDatasetNamespace: ns,
		datav1alpha1.LabelDatasetName: "data"}, map[string]string{datav1alpha1.AnnotationCreatedBy: "sluice", "example.com/blob": blob})
	for _, c := range []*corev1.PersistentVolumeClaim{tenant, dataset} {
		if err := env.Client.Create(ctxT(t), c); err != nil {
			t.Fatal(err)
		}
	}

	ctx, c := webhookCache(t, &corev1.PersistentVolumeClaim{})
	got := &corev1.PersistentVolumeClaim{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(tenant), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Annotations) != 0 || len(got.ManagedFields) != 0 || len(got.Labels) != 1 || got.Labels[datav1alpha1.LabelDatasetID] != "x" ||
		got.Spec.AccessModes != nil || got.Spec.Resources.Requests != nil {
		t.Fatalf("the tenant's PVC is cached with what the webhook does not read: labels %v, %d annotations, %d managedFields, spec %+v",
			got.Labels, len(got.Annotations), len(got.ManagedFields), got.Spec)
	}
	if got.UID == "" || got.ResourceVersion == "" || got.Spec.VolumeName != "pv-tenant" {
		t.Fatalf("the tenant's PVC lost its identity or volume name in the cache: %+v", got.ObjectMeta)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(dataset), got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{datav1alpha1.LabelDatasetID: ns + "-data", datav1alpha1.LabelDatasetNamespace: ns, datav1alpha1.LabelDatasetName: "data"}
	if len(got.Labels) != len(want) || got.Labels[datav1alpha1.LabelDatasetName] != "data" || got.Labels[datav1alpha1.LabelDatasetNamespace] != ns ||
		len(got.Annotations) != 0 || got.Spec.VolumeName != "pv-data" {
		t.Fatalf("a dataset PVC is cached without what the webhook reads: labels %v, annotations %d, volume %q", got.Labels, len(got.Annotations), got.Spec.VolumeName)
	}
}

// webhookCache starts an informer cache with the webhook's options
// against the real API server, with informers of kinds, and waits for it
// to sync; it stops with the test.
func webhookCache(t *testing.T, kinds ...client.Object) (context.Context, cache.Cache) {
	t.Helper()
	opts := webhook.CacheOptions([]string{webhook.DefaultNamespace}, webhook.DefaultNamespace)
	opts.Scheme = sluicescheme.New()
	c, err := cache.New(env.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctxT(t))
	t.Cleanup(cancel)
	go func() { _ = c.Start(ctx) }()
	for _, k := range kinds {
		if _, err := c.GetInformer(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	return ctx, c
}
