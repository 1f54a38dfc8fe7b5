package jindo

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

var _ engines.HostPorter = Engine{}

// HostPorts implements engines.HostPorter. On the host network (Fluid's
// default: spec.networkmode other than ContainerNetwork) the masters
// listen on their RPC port ("master.rpc") and, three of them, their Raft
// port ("master.raft"), the workers on their RPC port ("worker.rpc"), each
// spec.<component>.ports' or allocated by the controller. The FUSE client
// listens on none (its metrics listener is off, defaultFuseArgs).
func (Engine) HostPorts(obj client.Object) (map[string]int, error) {
	rt, ok := obj.(*datav1alpha1.JindoRuntime)
	if !ok {
		return nil, engines.Invalid("the Jindo engine serves JindoRuntimes, not %T", obj)
	}
	if !hostNetwork(rt) {
		return nil, nil
	}
	out := map[string]int{}
	if m := rt.Spec.Master; !m.Disabled {
		out["master.rpc"] = m.Ports["rpc"]
		if m.Replicas == 3 {
			out["master.raft"] = m.Ports["raft"]
		}
	}
	if w := rt.Spec.Worker; !w.Disabled {
		out["worker.rpc"] = w.Ports["rpc"]
	}
	return out, nil
}

// hostNetwork says rt's pods run on the host network.
func hostNetwork(rt *datav1alpha1.JindoRuntime) bool {
	return rt.Spec.NetworkMode != datav1alpha1.ContainerNetworkMode
}

// hostPort is the default of a port HostPorts names: on the host network,
// the one the controller recorded in status.hostPorts (def without a
// record); on the pod network, def (no other pod shares the pod's ports).
func hostPort(rt *datav1alpha1.JindoRuntime, name string, def int) int {
	if !hostNetwork(rt) {
		return def
	}
	return engines.HostPortOf(rt, name, def)
}
