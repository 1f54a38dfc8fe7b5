package alluxio

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// Watches implements engines.Watcher: a runtime waiting for the ConfigMap
// its spec.hadoopConfig names starts when that ConfigMap appears, and
// follows it when its files come or go.
func (Engine) Watches(r client.Reader) []engines.Watch {
	return []engines.Watch{{Object: &corev1.ConfigMap{}, Map: func(ctx context.Context, cm client.Object) []client.ObjectKey {
		list := &datav1alpha1.AlluxioRuntimeList{}
		if err := r.List(ctx, list, client.InNamespace(cm.GetNamespace())); err != nil {
			return nil
		}
		var out []client.ObjectKey
		for i := range list.Items {
			if list.Items[i].Spec.HadoopConfig == cm.GetName() {
				out = append(out, client.ObjectKeyFromObject(&list.Items[i]))
			}
		}
		return out
	}}}
}

// Serves implements engines.Watcher: the engine's reconciler serves every
// AlluxioRuntime.
func (Engine) Serves(datav1alpha1.RuntimeObject) bool { return true }
