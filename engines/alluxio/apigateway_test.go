package alluxio_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// TestAPIGatewayRunsInTheMasterPods: spec.apiGateway.enabled runs Alluxio's
// proxy beside each master, on its rest port (moved by ports.rest), which
// the masters' Service publishes and the runtime's status names.
func TestAPIGatewayRunsInTheMasterPods(t *testing.T) {
	ds, rt := sample()
	if _, ok := (alluxio.Engine{}).APIGateway(rt); ok {
		t.Error("a runtime without spec.apiGateway has a gateway endpoint")
	}
	if out := render(t, ds, rt); strings.Contains(out["templates/master-statefulset.yaml"], "alluxio-proxy") {
		t.Error("a proxy runs without spec.apiGateway.enabled")
	}
	rt.Spec.APIGateway = datav1alpha1.AlluxioCompTemplateSpec{Enabled: true, Ports: map[string]int{"rest": 39990}, Env: map[string]string{"TZ": "UTC"}}
	out := render(t, ds, rt)
	pod := podOf(t, out, "templates/master-statefulset.yaml")
	i := slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == "alluxio-proxy" })
	if i < 0 {
		t.Fatalf("no alluxio-proxy container in %v", pod.Containers)
	}
	proxy := pod.Containers[i]
	if !slices.Equal(proxy.Args, []string{"proxy"}) || len(proxy.Ports) != 1 || proxy.Ports[0].ContainerPort != 39990 ||
		!slices.ContainsFunc(proxy.Env, func(e corev1.EnvVar) bool { return e.Name == "TZ" && e.Value == "UTC" }) {
		t.Errorf("proxy container %+v", proxy)
	}
	svc := enginetest.Decode[corev1.Service](t, out, "templates/master-service.yaml")
	if !slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == "rest" && p.Port == 39990 }) {
		t.Errorf("Service ports %+v lack rest 39990", svc.Spec.Ports)
	}
	if conf := out["templates/config-configmap.yaml"]; !strings.Contains(conf, "alluxio.proxy.web.port=39990") {
		t.Errorf("the configuration does not move the proxy's port:\n%s", conf)
	}
	if ep, ok := (alluxio.Engine{}).APIGateway(rt); !ok || ep != "imagenet-master-0.imagenet-master.team-a.svc:39990" {
		t.Errorf("endpoint %q, %v", ep, ok)
	}
}

// TestAPIGatewayPodFieldsAreRefused: the proxy shares the master pod, so
// its pod-level fields are refused naming spec.master's.
func TestAPIGatewayPodFieldsAreRefused(t *testing.T) {
	ds, rt := sample()
	rt.Spec.APIGateway = datav1alpha1.AlluxioCompTemplateSpec{Enabled: true, NetworkMode: datav1alpha1.HostNetworkMode}
	_, err := alluxio.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "spec.apiGateway.networkMode: the API gateway", "set spec.master.networkMode")
}
