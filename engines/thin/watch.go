package thin

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

var _ engines.Watcher = Engine{}

// Watches implements engines.Watcher: a ThinRuntime waiting for its
// profile starts when the ThinRuntimeProfile it names appears or changes.
func (Engine) Watches(r client.Reader) []engines.Watch {
	return []engines.Watch{{Object: &datav1alpha1.ThinRuntimeProfile{}, Map: func(ctx context.Context, profile client.Object) []client.ObjectKey {
		list := &datav1alpha1.ThinRuntimeList{}
		if err := r.List(ctx, list); err != nil {
			return nil
		}
		var out []client.ObjectKey
		for i := range list.Items {
			if list.Items[i].Spec.ProfileName == profile.GetName() {
				out = append(out, client.ObjectKeyFromObject(&list.Items[i]))
			}
		}
		return out
	}}}
}

// Serves implements engines.Watcher: a ThinRuntime without
// spec.profileName serves a reference dataset, which controller/reference
// reconciles, not the engine's reconciler.
func (Engine) Serves(rt datav1alpha1.RuntimeObject) bool {
	t, ok := rt.(*datav1alpha1.ThinRuntime)
	return !ok || t.Spec.ProfileName != ""
}
