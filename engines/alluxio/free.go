package alluxio

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

var _ engines.CacheFreer = Engine{}

// FreeCache implements engines.CacheFreer: `alluxio fs free -f /` as a
// client of the runtime's masters (its configuration ConfigMap names
// them), which has every worker drop the blocks it caches, pinned ones
// included, before the release goes, as Fluid's shutdown does.
func (e Engine) FreeCache(obj client.Object) (corev1.PodSpec, error) {
	rt, ok := obj.(*datav1alpha1.AlluxioRuntime)
	if !ok {
		return corev1.PodSpec{}, engines.Invalid("the Alluxio engine serves AlluxioRuntimes, not %T", obj)
	}
	c, config := clientContainer(rt, e.mainImage(rt))
	c.Name = "free"
	c.Command = dataop.Args(alluxioCommand, "fs", "free", "-f", "/")
	return corev1.PodSpec{Containers: []corev1.Container{c}, Volumes: []corev1.Volume{config}, ImagePullSecrets: rt.Spec.ImagePullSecrets}, nil
}
