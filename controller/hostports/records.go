package hostports

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// HolderOf names the runtime rt of the kind (AlluxioRuntime).
func HolderOf(kind string, rt client.Object) Holder {
	return Holder{Kind: kind, Namespace: rt.GetNamespace(), Name: rt.GetName()}
}

// Records is the Loader that lists every runtime kind through r (the API
// server) and reads each runtime's status.hostPorts.
func Records(r client.Reader) Loader {
	return func(ctx context.Context) (map[Holder]map[string]int32, error) {
		out := map[Holder]map[string]int32{}
		for _, k := range datav1alpha1.RuntimeKinds() {
			list, _ := datav1alpha1.NewRuntimeList(k.Kind)
			if err := r.List(ctx, list); err != nil {
				return nil, fmt.Errorf("listing %ss: %w", k.Kind, err)
			}
			for _, rt := range list.GetRuntimes() {
				if ports := rt.GetRuntimeStatus().HostPorts; len(ports) > 0 {
					out[HolderOf(k.Kind, rt)] = ports
				}
			}
		}
		return out, nil
	}
}
