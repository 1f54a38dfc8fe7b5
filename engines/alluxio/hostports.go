package alluxio

import (
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

var _ engines.HostPorter = Engine{}

// hostComponent is a process whose ports are named "<name>.<port>" in
// status.hostPorts, in a pod on the host network or not.
type hostComponent struct {
	name string
	defs []portDef
	// ports are spec.<name>.ports.
	ports map[string]int
	// host: its pod runs on the host network.
	host bool
	// props are the properties its process reads over the computed ones
	// (its pod's properties file), where a port property may be set by
	// hand too.
	props map[string]string
}

// hostComponents are the processes of the master pods (master, job master
// and, with spec.apiGateway.enabled, the proxy) and of the worker pods
// (worker, job worker). Masters and workers run on
// the pod network unless spec.master.networkMode or
// spec.worker.networkMode is HostNetwork (Fluid's default is the host
// network: Sluice keeps tenants' Alluxio processes off the host's network
// namespace unless asked, docs/engines.md).
func hostComponents(rt *datav1alpha1.AlluxioRuntime) []hostComponent {
	s := rt.Spec
	masterHost, workerHost := s.Master.NetworkMode == datav1alpha1.HostNetworkMode, s.Worker.NetworkMode == datav1alpha1.HostNetworkMode
	masterProps := engines.Merge(s.Properties, s.Master.Properties, s.JobMaster.Properties)
	workerProps := engines.Merge(s.Properties, s.Worker.Properties, s.JobWorker.Properties)
	return []hostComponent{
		{"master", masterPortDefs, s.Master.Ports, masterHost, masterProps},
		{"jobMaster", jobMasterPortDefs, s.JobMaster.Ports, masterHost, masterProps},
		{"worker", workerPortDefs, s.Worker.Ports, workerHost, workerProps},
		{"jobWorker", jobWorkerPortDefs, s.JobWorker.Ports, workerHost, workerProps},
		{"apiGateway", proxyPortDefs, s.APIGateway.Ports, masterHost && s.APIGateway.Enabled, engines.Merge(s.Properties, s.APIGateway.Properties)},
	}
}

// HostPorts implements engines.HostPorter: every port of the processes of
// the pods on the host network (the embedded-journal ports only with a
// quorum of masters, the only case they are listened on), each as
// spec.<component>.ports or its Alluxio property sets it by hand, else 0
// for the controller to allocate.
func (Engine) HostPorts(obj client.Object) (map[string]int, error) {
	rt, ok := obj.(*datav1alpha1.AlluxioRuntime)
	if !ok {
		return nil, engines.Invalid("the Alluxio engine serves AlluxioRuntimes, not %T", obj)
	}
	quorum := rt.Spec.Master.Replicas > 1
	out := map[string]int{}
	for _, c := range hostComponents(rt) {
		if !c.host {
			continue
		}
		for _, d := range c.defs {
			if d.name == "embedded" && !quorum {
				continue
			}
			p := c.ports[d.name]
			if v, set := c.props[d.property]; set && p == 0 {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > 65535 {
					return nil, engines.Invalid("property %s is %q, not a port number", d.property, v)
				}
				p = n
			}
			out[c.name+"."+d.name] = p
		}
	}
	return out, nil
}

// hostPortsOver are the ports of the named component that its spec ports
// (spec) override the defaults with: on the host network, the ports the
// controller recorded for it in status.hostPorts under spec; on the pod
// network, spec alone (no other pod shares the pod's ports).
func hostPortsOver(rt *datav1alpha1.AlluxioRuntime, name string, spec map[string]int) map[string]int {
	for _, c := range hostComponents(rt) {
		if c.name != name || !c.host {
			continue
		}
		out := map[string]int{}
		for _, d := range c.defs {
			if p := engines.HostPortOf(rt, name+"."+d.name, 0); p > 0 {
				out[d.name] = p
			}
		}
		for k, v := range spec {
			out[k] = v
		}
		return out
	}
	return spec
}
