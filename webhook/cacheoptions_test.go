package webhook

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestEveryTenantKindIsSelectedAndTrimmed enumerates the kinds the webhook
// caches (Informed) and fails on a namespaced kind tenants create, other
// than Sluice's own API, that the cache keeps without a label selector and
// a transform of its own (audit N9: the webhook cached every DaemonSet in
// the cluster, whole, after the PVCs were trimmed): such a kind grows the
// webhook's memory with whatever tenants write into it. Sluice's kinds
// (Datasets, runtimes, operations) are the objects the webhook judges;
// cluster-scoped kinds are not tenants' to create; the namespaced kinds
// restricted to the webhook's own namespaces (policy ConfigMaps, FUSE
// records) are written by the platform and the controller.
func TestEveryTenantKindIsSelectedAndTrimmed(t *testing.T) {
	// Cluster-scoped kinds the webhook reads; tenants do not create them.
	clusterScoped := map[reflect.Type]bool{
		reflect.TypeFor[corev1.PersistentVolume](): true,
		reflect.TypeFor[corev1.Namespace]():        true,
	}
	opts := CacheOptions([]string{DefaultNamespace}, DefaultNamespace)
	s := scheme.New()
	byType := map[reflect.Type]bool{}
	for obj, o := range opts.ByObject {
		typ := reflect.TypeOf(obj).Elem()
		restricted := len(o.Namespaces) > 0 && o.Label != nil
		byType[typ] = restricted || (o.Label != nil && !o.Label.Empty() && o.Transform != nil)
	}
	for _, obj := range append(Informed(), &corev1.ConfigMap{}) {
		typ := reflect.TypeOf(obj).Elem()
		gvks, _, err := s.ObjectKinds(obj)
		if err != nil {
			t.Fatal(err)
		}
		if gvks[0].Group == datav1alpha1.GroupVersion.Group || clusterScoped[typ] {
			continue
		}
		if !byType[typ] {
			t.Errorf("%s is cached without a label selector and a transform (or a restriction to Sluice's namespaces): tenants' objects of this kind would fill the webhook's memory", kindName(obj))
		}
	}
}

func kindName(obj client.Object) string { return reflect.TypeOf(obj).Elem().Name() }
