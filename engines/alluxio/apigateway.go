package alluxio

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// ProxyPort is the default port of the API gateway: Alluxio's proxy, which
// serves Alluxio's REST API and its S3 API.
const ProxyPort = 39999

var proxyPortDefs = []portDef{{"rest", ProxyPort, "alluxio.proxy.web.port"}}

// proxyOf is the API gateway of spec.apiGateway (nil unless enabled): as
// in Fluid, an Alluxio proxy container in each master pod, reading the
// masters' addresses from the configuration like the other processes.
func proxyOf(rt *datav1alpha1.AlluxioRuntime, ports map[string]int) *containerValues {
	gw := rt.Spec.APIGateway
	if !gw.Enabled {
		return nil
	}
	return &containerValues{Resources: gw.Resources, Ports: ports, VolumeMounts: gw.VolumeMounts,
		Env: (&envBuilder{}).javaOpts("ALLUXIO_PROXY_JAVA_OPTS", nil, rt.Spec.JvmOptions, gw.JvmOptions).runAs(rt.Spec.RunAs).user(gw.Env)}
}

// APIGateway implements engines.Gateway: the API gateway of an
// AlluxioRuntime with spec.apiGateway.enabled listens (Fluid's
// status.apiGateway.endpoint) at the first master pod's name under the
// masters' Service, at the REST port (any master's proxy serves the
// leading master's namespace; on the host network, the one the controller
// allocated unless spec.apiGateway.ports sets it).
func (Engine) APIGateway(obj client.Object) (endpoint string, ok bool) {
	rt, err := alluxioRuntime(obj)
	if err != nil || !rt.Spec.APIGateway.Enabled {
		return "", false
	}
	port := ProxyPort
	if p, set := hostPortsOver(rt, "apiGateway", rt.Spec.APIGateway.Ports)["rest"]; set {
		port = p
	}
	return fmt.Sprintf("%s-master-0.%s:%d", rt.Name, masterDomain(rt), port), true
}

// apiGatewayFields are the rows of spec.apiGateway: the proxy is a
// container of the master pods, so its pod-level fields are refused in
// favour of spec.master's.
func apiGatewayFields() engines.Fields {
	const p, what = "spec.apiGateway.", "API gateway (Alluxio's proxy, its REST and S3 API)"
	rows := engines.Fields{
		engines.HonouredField(p+"enabled", "runs the "+what+" in each master pod, listening on port rest (39999) of the masters' Service; status.apiGateway.endpoint says where"),
		engines.HonouredField(p+"env", "environment of the "+what),
		engines.HonouredField(p+"jvmOptions", "JVM flags of the "+what+", after spec.jvmOptions"),
		engines.HonouredField(p+"ports", "ports of the "+what+" (rest); with the masters on the host network the controller allocates it unless set (status.hostPorts)"),
		propertiesRow(p+"properties", "Alluxio properties of the "+what+", over spec.properties"),
		engines.HonouredField(p+"resources", "container resources of the "+what),
		engines.HonouredField(p+"volumeMounts", "mounts of spec.volumes in the "+what),
		engines.WarnedField(p+"replicas", "has no effect: one runs in each master pod"),
	}
	for _, f := range []string{"imagePullSecrets", "networkMode", "nodeSelector", "podMetadata"} {
		rows = append(rows, engines.RefusedField(p+f, "the "+what+" runs in the master pods; set spec.master."+f))
	}
	return rows
}
